package usage

import (
	"fmt"

	"github.com/throttlebench/throttlebench/internal/report"
)

// WholeMachine is the warning for a sample of the host's top cgroup
// (hostRoot, cgroup.Cgroup.IsHostRoot; nil for any other): its counter holds
// every process's CPU time, so neither the usage nor the advice is one
// service's.
func (o Options) WholeMachine(hostRoot bool) []report.Warning {
	if !hostRoot {
		return nil
	}
	what := "cgroup / is the whole machine"
	switch {
	case o.PID > 0:
		what = fmt.Sprintf("process %d is in cgroup /, the whole machine", o.PID)
	case o.Cgroup == "":
		what = "this process is in cgroup /, the whole machine"
	}
	return []report.Warning{{Kind: report.KindWholeMachine, Text: what + ": every process's CPU is counted, the sampler's too, so the usage and the advice are the machine's, not one service's; " +
		"to sample one service, give it a cgroup of its own and name it with --cgroup (docs/sample.md, \"One service, one cgroup\"), or start it with throttlebench sample -- CMD"}}
}
