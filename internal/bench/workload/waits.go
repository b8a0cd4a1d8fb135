package workload

import "time"

// WithWaits makes w a slow worker's, CPU work with waits as fibtest's slow
// threads do it (100 units, then 10 ms): after every `every` operations of
// w it sleeps d. The sleep is in the worker's wall time, not its CPU time.
// d ≤ 0 or every < 1 leaves w as it is.
func WithWaits(w Workload, d time.Duration, every int) Workload {
	if d <= 0 || every < 1 {
		return w
	}
	return &waits{w: w, sleep: d, every: every}
}

type waits struct {
	w     Workload
	sleep time.Duration
	every int
	n     int // operations since the last sleep, across iterations
}

func (s *waits) Do() error {
	if err := s.w.Do(); err != nil {
		return err
	}
	if s.n++; s.n >= s.every {
		s.n = 0
		time.Sleep(s.sleep)
	}
	return nil
}
