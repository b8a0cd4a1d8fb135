package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/golden"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// nodeRow is one row of docs/sweep.md's sweep --from example (three limits on
// two nodes): mean, p50, p99, cov, throttled fraction, model ratio.
func nodeRow(node, cpus string, share float64, m [6]float64) Row {
	r := fakeReport(share, m[0], frac(m[4]))
	r.Stats.P50Ms, r.Stats.P99Ms, r.Stats.CoV, r.Model.Ratio = m[1], m[2], m[3], m[5]
	r.Spread.SlowestToFastest = 1
	return Row{Config: Config{{"node", node}, {"cpus", cpus}}, Report: r}
}

// readmeNodes are the rows of docs/sweep.md's sweep --from example, and a
// configuration skipped.
func readmeNodes() []Row {
	return []Row{
		nodeRow("node-a", "0.25", 0.25, [6]float64{219.6, 207.2, 280.0, 0.143, 1, 0.97}),
		nodeRow("node-a", "0.5", 0.5, [6]float64{113.0, 109.2, 153.0, 0.146, 1, 1.00}),
		nodeRow("node-a", "1", 1, [6]float64{58.6, 58.2, 62.0, 0.040, 0.182, 1.01}),
		nodeRow("node-b", "0.25", 0.25, [6]float64{234.0, 211.0, 286.2, 0.165, 1, 1.02}),
		nodeRow("node-b", "0.5", 0.5, [6]float64{113.5, 108.2, 155.8, 0.154, 1, 0.99}),
		nodeRow("node-b", "1", 1, [6]float64{57.0, 56.7, 59.9, 0.017, 0.200, 1.01}),
	}
}

// withSkipped adds a configuration the kernel refused, and warnings.
func withSkipped() []Row {
	rows := readmeNodes()[:3]
	rows[0].Report.Warnings = []report.Warning{{Kind: report.KindFewPeriods, Text: "few periods: an iteration spans 2 periods; raise --batch"}}
	return append(rows, Row{Config: Config{{"node", "node-a"}, {"cpus", "0.001"}},
		Skipped: `invalid --cpus "0.001": the quota would be 100µs at the period 100ms, below the kernel's 1ms minimum`})
}

// A sweep's table at 80 columns (a pipe, a file; docs/sweep.md's example), at
// 200, with --columns all and a list; CSV and markdown are never cut.
func TestTablesGolden(t *testing.T) {
	named := table.Columns{Names: []string{"p99_ms", "spread"}}
	for _, c := range []struct {
		file   string
		rows   []Row
		format string
		view   table.View
	}{
		{"nodes-80.txt", readmeNodes(), "text", table.View{Width: 80}},
		{"nodes-200.txt", readmeNodes(), "text", table.View{Width: 200}},
		{"nodes-all.txt", readmeNodes(), "text", table.View{Columns: table.Columns{All: true}, Width: 80}},
		{"nodes-named.txt", readmeNodes(), "text", table.View{Columns: named, Width: 80}},
		{"nodes-named.csv", readmeNodes(), "csv", table.View{Columns: named, Width: 80}},
		{"nodes.md", readmeNodes(), "markdown", table.View{Width: 80}},
		{"skipped-80.txt", withSkipped(), "text", table.View{Width: 80}},
		{"skipped-200.txt", withSkipped(), "text", table.View{Width: 200}},
	} {
		t.Run(c.file, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, WriteRows(&b, c.rows, c.format, c.view))
			golden.Check(t, c.file, b.String())
			if c.format == "text" && !c.view.All {
				golden.Fits(t, b.String(), c.view.Width)
			}
		})
	}
}

// The nodes' table at 80 columns keeps the keys and the headlines, says
// what every row shares and what went to fit.
func TestNodesAt80(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteRows(&b, readmeNodes(), "text", table.View{Width: 80}))
	head, rows, _ := strings.Cut(b.String(), "\n\n")
	assert.Equal(t, "same in every row: spread=1.00\nleft out to fit 80 columns: p50_ms, cov; --columns all shows them", head)
	assert.Equal(t, []string{"node", "cpus", "mean_ms", "p99_ms", "throttled_fraction", "model_ratio", "cost_cpu_s"},
		strings.Fields(strings.SplitN(rows, "\n", 2)[0]))
}
