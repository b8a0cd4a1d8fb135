package cgroupref

import (
	"errors"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Sampled finds the cgroup whose counter o's sample reads. A cgroup or
// process that does not exist is bad input (a badinput.Error); a host
// without a usage counter is not.
func Sampled(o usage.Options, h cgroup.Host) (cgroup.Cgroup, error) {
	flag, value := "cgroup", o.Cgroup
	var cg cgroup.Cgroup
	var err error
	if o.PID > 0 {
		flag, value = "pid", o.PIDGiven
		cg, err = h.UsageCgroupOfPID(o.PID)
	} else {
		cg, err = h.UsageCgroup(o.Cgroup)
	}
	if errors.Is(err, cgroup.ErrNoCgroup) || errors.Is(err, cgroup.ErrNoProcess) {
		return cg, badinput.Errorf(flag, "invalid --%s %q: %v", flag, value, err)
	}
	return cg, err
}
