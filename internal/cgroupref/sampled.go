package cgroupref

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

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
		flag, value = "pid", o.PIDGiven()
		cg, err = h.UsageCgroupOfPID(o.PID)
	} else {
		cg, err = h.UsageCgroup(o.Cgroup)
	}
	if errors.Is(err, cgroup.ErrNoCgroup) || errors.Is(err, cgroup.ErrNoProcess) {
		return cg, badinput.Errorf(flag, "invalid --%s %q: %v", flag, value, err)
	}
	return cg, err
}

// IsHostRoot says whether cg is the top of its hierarchy on the host, not
// only in this cgroup namespace (a container's / is its own cgroup): the
// kernel gives v1's release_agent to the true top alone, and v2's
// cgroup.type to every cgroup but the top.
func IsHostRoot(cg cgroup.Cgroup) bool {
	if cg.Path != "/" {
		return false
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(cg.Dir, name))
		return !errors.Is(err, fs.ErrNotExist)
	}
	if cg.Version == 2 {
		return !exists("cgroup.type")
	}
	return exists("release_agent")
}
