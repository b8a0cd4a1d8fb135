package show

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/sizing"
	"github.com/throttlebench/throttlebench/internal/table"
)

var benchHost = report.Host{Kernel: "6.18.0-1-amd64", CPUModel: "Test CPU", NumCPU: 2, GoVersion: "go1.26.8"}

// noise is a spread of ±4% around 1, the same for every kind: ten values.
var noise = []float64{1.00, 0.98, 1.03, 0.99, 1.02, 0.97, 1.01, 1.04, 0.96, 1.00}

// runGobench is a run of ten iterations of about 100 ms × factor, as show
// writes it.
func runGobench(t *testing.T, factor float64) string {
	period := int64(100_000)
	r := &report.Report{SchemaVersion: report.SchemaVersion, Host: benchHost,
		Config: report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 50, Iterations: 10, Workers: 2, GOMAXPROCS: 2, GOMAXPROCSPolicy: "workers"},
		Cgroup: report.Cgroup{Mode: "created", Version: 2, PeriodUs: &period, QuotaUs: 50_000, EffectiveCPUs: 0.5},
		Model:  report.Model{CPUMsPerIteration: 45, Parallelism: 0.5, ExpectedMs: 90, Ratio: 1.1}}
	for _, n := range noise {
		r.DurationsMs = append(r.DurationsMs, 100*factor*n)
	}
	return write(t, runResult{r}, render.Gobench)
}

// latencyGobench is six latency runs of one configuration, appended one
// after another as a CI job collects them (>> base.txt): benchstat needs
// several figures of a configuration, and one run gives one.
func latencyGobench(t *testing.T, factor float64) string {
	period := int64(100_000)
	var out strings.Builder
	for _, n := range noise[:6] {
		f := factor * n
		l := &report.Latency{SchemaVersion: report.SchemaVersion, Host: benchHost,
			Config:    report.LatencyConfig{Rate: 100, Arrivals: "poisson", WorkMs: 5, Workers: 2, Queue: 100, DurationS: 10, GOMAXPROCS: 2, GOMAXPROCSPolicy: "workers"},
			Cgroup:    report.Cgroup{Mode: "created", Version: 2, PeriodUs: &period, QuotaUs: 100_000, EffectiveCPUs: 1},
			Completed: 1000,
			LatencyMs: report.LatencyMs{Mean: 6 * f, Min: 5, P50: 5.5 * f, P90: 8 * f, P99: 20 * f, P999: 40 * f, Max: 50 * f}}
		out.WriteString(write(t, latencyResult{rows: latencyRows([]*report.Latency{l})}, render.Gobench))
	}
	return out.String()
}

// sizeGobench is six size results appended, recommending about 0.4 CPUs
// × factor.
func sizeGobench(t *testing.T, factor float64) string {
	var out strings.Builder
	for _, n := range noise[:6] {
		cpus := 0.4 * factor * n
		r := sizing.Result{SchemaVersion: sizing.SchemaVersion, SLO: "p99<=20ms", Loop: "open", Window: "2s", PeriodUs: 100_000, Confidence: 0.95,
			Kernel: benchHost.Kernel, CgroupVersion: 2, Outcome: sizing.OutcomeRecommendation,
			Recommendation: &sizing.Recommendation{CPUs: &cpus, PeriodUs: 100_000}, Bracket: size.Bracket{PassCPUs: &cpus},
			Pairs: []sizing.Pair{{BurstUs: 0}}, Arms: []sizing.Arm{{Order: 1, Unlimited: true, Windows: []sizing.Window{{GOMAXPROCS: 2}}}}}
		out.WriteString(write(t, SizeResult{r}, render.Gobench))
	}
	return out.String()
}

func write(t *testing.T, r Result, format string) string {
	var b bytes.Buffer
	require.NoError(t, r.Write(&b, format, table.View{}))
	return b.String()
}

// benchstat runs golang.org/x/perf's benchstat (a tool of this module:
// go.mod's tool directive) on two files, and gives its verdict for each
// unit and benchmark: the "vs base" cell of its CSV, and its p-value's.
func benchstat(t *testing.T, old, new string) map[string]map[string][2]string {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	require.NoError(t, os.WriteFile(a, []byte(old), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(new), 0o644))
	cmd := exec.CommandContext(t.Context(), "go", "tool", "benchstat", "-format", "csv", a, b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go tool benchstat: %s", stderr.String())
	verdicts := map[string]map[string][2]string{}
	unit := ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, ",")
		switch {
		case len(f) == 7 && f[0] == "" && f[2] == "CI":
			unit = f[1]
			verdicts[unit] = map[string][2]string{}
		case len(f) >= 7 && unit != "" && f[0] != "" && f[0] != "geomean":
			verdicts[unit][f[0]] = [2]string{f[5], f[6]}
		}
	}
	return verdicts
}

// benchstat reads the gobench of each kind we write and judges it as a
// CI job needs: a second file clearly slower (30%, far above the ±4%
// noise) is a significant increase, the same samples no change (~).
func TestBenchstatJudgesOurGobench(t *testing.T) {
	for _, c := range []struct {
		kind, unit, bench string
		gobench           func(*testing.T, float64) string
	}{
		{"run", "sec/op", "Throttle/cpus=0.5/period=100ms/burst=0s/workers=2/gomaxprocs=2/cost=4/batch=50", runGobench},
		{"latency", "p99_ms", "Latency/cpus=1/period=100ms/burst=0s/workers=2/gomaxprocs=2/work=5ms/rate=100/arrivals=poisson", latencyGobench},
		{"size", "cpus", "Size/slo=p99<=20ms/loop=open/window=2s/period=100ms", sizeGobench},
	} {
		base := c.gobench(t, 1)
		slower := benchstat(t, base, c.gobench(t, 1.3))
		v, ok := slower[c.unit][c.bench]
		require.True(t, ok, "%s: benchstat compared %s in %s: %v", c.kind, c.bench, c.unit, slower)
		assert.Equal(t, "+30.00%", v[0], "%s: a significant increase", c.kind)
		assert.Regexp(t, `^p=0\.0[0-4]\d n=(6|10)$`, v[1], "%s: below benchstat's alpha of 0.05", c.kind)
		same := benchstat(t, base, base)
		assert.Equal(t, "~", same[c.unit][c.bench][0], "%s: the same samples, no change: %v", c.kind, same)
		t.Logf("%s: slower %s %v, same %v", c.kind, c.unit, v, same[c.unit][c.bench])
	}
}
