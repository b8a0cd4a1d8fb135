//go:build linux

package runner

// startWatchedProcess starts a command as --serve's server
// (startServerProcess), which also says when it ends.
func startWatchedProcess(exe string, argv []string) (watchedHandle, error) {
	s, err := startServerProcess(exe, argv, nil)
	if err != nil {
		return nil, err
	}
	return s.(*serverProcess), nil
}

// Done is closed once the process has exited and been reaped.
func (s *serverProcess) Done() <-chan struct{} { return s.done }
