package tracer

import "github.com/throttlebench/throttlebench/internal/throttle"

// Start traces the cgroup at cgroupDir (a directory of the cpu controller's
// hierarchy, v1 or v2; its descendants are traced too): New, then Track of
// its id, as a run does (runner's trace window). The tests' way in: onEvent
// is as New's; the threads' states are asked for, and dropped, so that
// what a test or benchmark measures is the tracer a run attaches.
func Start(cgroupDir string, onEvent func(throttle.Event)) (*Tracer, error) {
	return start(cgroupDir, onEvent, attachOrder)
}

// start is Start trying only the attach points given, in order (tests
// force the raw_tp fallback with it).
func start(cgroupDir string, onEvent func(throttle.Event), attaches []string) (*Tracer, error) {
	id, err := CgroupID(cgroupDir)
	if err != nil {
		return nil, err
	}
	t, err := attachNew(onEvent, func(throttle.State) {}, attaches, nil)
	if err != nil {
		return nil, err
	}
	if err := t.Track(id); err != nil {
		t.Stop()
		return nil, err
	}
	return t, nil
}
