package target

import (
	"errors"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runner/runnertest"
)

// world is runnertest's kernel for the target's runs, with stats as the
// nr_periods of successive cpu.stat reads: its slices have no usage
// counter, and a target's run is never in the current cgroup.
type world struct{ runnertest.Kernel }

func newWorld(stats ...uint64) *world {
	return &world{runnertest.Kernel{Stats: stats, Fail: map[string]error{
		"usage": errors.New("no usage counter"),
		"self":  errors.New("a target's run is never in the current cgroup"),
	}}}
}

// engine is the target's engine on the world, with srv as --serve's
// server and a guard on the world's log.
func (w *world) engine(srv *fakeServer) *Engine {
	return &Engine{
		Local: &runner.Local{Machine: runner.Machine{
			Cgroups:    runnertest.Cgroups[runner.Slice, runner.Current]{Kernel: &w.Kernel},
			HostCPU:    w.HostCPU,
			ProcessCPU: w.ProcessCPU,
			HostInfo:   w.HostInfo,
			PIDCPU:     func(int) (time.Duration, error) { return 10 * time.Millisecond, nil },
		}},
		StartServer: func(exe string, argv, env []string) (Server, error) {
			srv.env = env
			return srv, w.Step("server start " + strings.Join(argv, " "))
		},
		StartGuard: func(exe, dir string) (Guard, error) { return w.Guard(), w.Step("guard " + dir) },
	}
}
