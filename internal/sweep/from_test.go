package sweep

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

func result(node string, quotaUs int64, workers int) report.Report {
	period := int64(100000)
	r := report.Report{SchemaVersion: report.SchemaVersion, DurationsMs: []float64{10, 11}}
	r.Config.Workload, r.Config.Params, r.Config.Batch, r.Config.Workers, r.Config.GOMAXPROCS = "bcrypt", report.Params{}.With("cost", 4), 20, workers, workers
	r.Cgroup.PeriodUs, r.Cgroup.QuotaUs = &period, quotaUs
	r.Host.Node = node
	return r
}

// The settings that differ become the columns, the node first; the quota
// reads as --cpus does.
func TestFromReportsColumns(t *testing.T) {
	reps := []report.Report{result("node-a", 25000, 1), result("node-a", 100000, 1), result("node-b", 25000, 1), result("node-b", 100000, 1)}
	rows := FromReports(reps)
	require.Len(t, rows, 4)
	assert.Equal(t, Config{{"node", "node-b"}, {"cpus", "0.25"}}, rows[2].Config)

	var b bytes.Buffer
	require.NoError(t, WriteText(&b, rows, table.View{}))
	assert.Contains(t, b.String(), "    node  cpus")
	assert.Contains(t, b.String(), "  node-b     1")

	// One configuration on one node: the share alone; unlimited is max.
	rows = FromReports([]report.Report{result("", -1, 2)})
	assert.Equal(t, Config{{"cpus", "max"}}, rows[0].Config)

	// The workers differ (and GOMAXPROCS with them), nothing else: no node
	// column, no share.
	rows = FromReports([]report.Report{result("", 50000, 1), result("", 50000, 2)})
	assert.Equal(t, Config{{"workers", "2"}, {"gomaxprocs", "2"}}, rows[1].Config)
}
