package options

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/badinput"
)

// gave says that the user gave these flags, each with the value "v-" and its name.
func gave(names ...string) Given {
	return Given{Changed: func(n string) bool { return slices.Contains(names, n) }, Value: func(n string) string { return "v-" + n }, Names: names}
}

func refused(t *testing.T, err error, flag, msg string) {
	t.Helper()
	var ue *badinput.Error
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, flag, ue.Param)
	assert.Equal(t, msg, err.Error())
}

// Every line of the table is a whole sentence: no verb left unfilled, no
// value appended where the line names none.
func TestTableLines(t *testing.T) {
	for m, rules := range Table {
		for _, r := range rules {
			names := r.Flags
			if r.Keep != nil {
				names = []string{"other"}
			}
			for _, name := range names {
				err := Refuse(m, Given{Changed: func(n string) bool { return n == name }, Value: func(string) string { return "v" }, Names: []string{name}})
				require.Error(t, err, "%s --%s", m, name)
				assert.NotContains(t, err.Error(), "%!", "%s --%s", m, name)
				assert.True(t, strings.HasPrefix(err.Error(), "--"+name+" "), "%s: %q", m, err)
			}
		}
	}
}

// Each mode refuses what it cannot take, the first in the table's order,
// and nothing else.
func TestRefuse(t *testing.T) {
	refused(t, Refuse(LatencyBuiltIn, gave("header", "serve")), "serve", "--serve applies only with --target URL")
	assert.NoError(t, Refuse(LatencyBuiltIn, gave("rate", "cpus")))

	// The limits only without --serve; the workload's parameters always.
	refused(t, Refuse(LatencyTarget, gave("cpus")), "cpus",
		"--cpus cannot be used with --target without --serve: a server already running is measured in the limits it has, and its cgroup is never written")
	assert.NoError(t, Refuse(LatencyServe, gave("cpus", "burst", "rate", "seed", "gomaxprocs")))
	refused(t, Refuse(LatencyTarget, gave("gomaxprocs")), "gomaxprocs",
		"--gomaxprocs applies with --target only to --serve's server (its environment's GOMAXPROCS): a server already running keeps its own")
	refused(t, Refuse(LatencyServe, gave("work")), "work", "--work applies to the built-in workload, not to --target: the server does the work")
	refused(t, Refuse(LatencyServe, gave("summary")), "summary", "--summary applies only with --instances, not with --target")
	refused(t, Refuse(LatencyAttached, gave("parent")), "parent", "--parent applies with --target only to --serve's server (it creates a slice)")
	refused(t, Refuse(LatencyNoInstances, gave("summary")), "summary", "--summary applies only with --instances: it leaves out their requests[]")

	refused(t, Refuse(SweepHere, gave("per-node")), "per-node", "--per-node applies only with --emit (kubernetes or sonobuoy): the sweep runs here otherwise")
	assert.NoError(t, Refuse(SweepHere, gave("cpus", "emit")))
	refused(t, Refuse(SweepEmit, gave("cpus", "period")), "period", `--period "v-period" cannot be emitted: a pod's CFS period is the kubelet's (cpuCFSQuotaPeriod, 100ms by default), the same for every pod on the node; drop --period, or set cpuCFSQuotaPeriod in the kubelet's configuration`)
	assert.NoError(t, Refuse(SweepEmit, gave("cpus", "workers", "image")))
	for _, flag := range []string{"per-node", "nodes", "nodes-from", "ttl", "job-deadline"} {
		err := Refuse(SweepSonobuoy, gave(flag))
		require.Error(t, err, flag)
		assert.Contains(t, err.Error(), "applies to --emit kubernetes")
	}

	// --from keeps how results are shown; the first other flag, by name,
	// is refused with its value.
	assert.NoError(t, Refuse(SweepFrom, gave("columns", "format", "from", "output", "plot", "quiet")))
	refused(t, Refuse(SweepFrom, gave("cpus", "from", "workers")), "cpus", `--cpus "v-cpus" cannot be used with --from: it shows results read from a file and runs nothing`)
}
