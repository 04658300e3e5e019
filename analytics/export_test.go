package analytics

// SegmentBytes is the size a journal segment is created at, for tests that build one as a killed
// process leaves it.
const SegmentBytes = segmentBytes
