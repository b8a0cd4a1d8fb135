package usage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

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

// WholeMachine is the warning for a sample of the host's top cgroup (nil
// for any other): its counter holds every process's CPU time, so neither
// the usage nor the advice is one service's.
func (o Options) WholeMachine(cg cgroup.Cgroup) []string {
	if !IsHostRoot(cg) {
		return nil
	}
	what := "cgroup / is the whole machine"
	switch {
	case o.PID > 0:
		what = fmt.Sprintf("process %d is in cgroup /, the whole machine", o.PID)
	case o.Cgroup == "":
		what = "this process is in cgroup /, the whole machine"
	}
	return []string{what + ": every process's CPU is counted, the sampler's too, so the usage and the advice are the machine's, not one service's; " +
		"to sample one service, give it a cgroup of its own and name it with --cgroup (docs/sample.md, \"One service, one cgroup\"), or start it with throttlebench sample -- CMD"}
}
