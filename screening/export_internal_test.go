package screening

// SetAfterMiss sets the hook run between a request's cache miss and its joining the flight (tests).
func (s *Screener) SetAfterMiss(f func()) { s.afterMiss = f }
