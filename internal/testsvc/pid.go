package testsvc

// PID is the server's process id (0 when it is not running): benchmarks read its CPU time from /proc.
func (p *Proc) PID() int {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}
