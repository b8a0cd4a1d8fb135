package sizing

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
)

// recommended is a search that answered 0.5 CPUs, 0.45 failing below it.
func recommended() Result {
	unl := arm(1, 0, "", size.Pass, pass(10))
	unl.Windows[0].GOMAXPROCS = 2
	return Result{SLO: "p99<=20ms", Loop: "closed", Window: "20 iterations", PeriodUs: 100_000, Kernel: "6.18.0-1-amd64", CgroupVersion: 1,
		Outcome: OutcomeRecommendation, Recommendation: &Recommendation{CPUs: ptr(0.5), QuotaUs: ptr(int64(50_000)), PeriodUs: 100_000},
		Bracket: size.Bracket{PassCPUs: ptr(0.5), FailCPUs: ptr(0.45)}, Pairs: []Pair{{BurstUs: 0}, {BurstUs: 50_000}},
		Arms: []Arm{unl, arm(2, 0.5, "", size.Pass, pass(15)), arm(3, 0.45, "", size.Fail, fail(30))}}
}

// The figure is the recommendation in CPUs; the configuration lines say
// the question, not the answer, so that two results benchstat compares
// are grouped together.
func TestSizeGobench(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, recommended(), render.Gobench, 0))
	out := buf.String()
	assert.Contains(t, out, "BenchmarkSize/slo=p99<=20ms/loop=closed/window=20_iterations/period=100ms\t1\t0.5 cpus\n")
	assert.Contains(t, out, "Unit cpus better=lower\n")
	for _, line := range []string{"kernel: 6.18.0-1-amd64", "throttle-model: per-task", "cgroup-version: 1", "quota: searched", "period: 100ms", "burst: 0s,50ms", "gomaxprocs: 2"} {
		assert.Contains(t, out, line+"\n")
	}
	assert.NotContains(t, out, "quota: 50ms", "the answer's quota is no configuration line")
	assert.Empty(t, recommended().LeftOut(render.Gobench))
}

// No recommendation: the configuration lines and no benchmark line in the
// Go format, nothing in the JSON ones, and a line for stderr saying why.
func TestSizeWithoutRecommendation(t *testing.T) {
	for _, r := range []Result{
		func() Result {
			r := recommended()
			r.Recommendation, r.Outcome, r.Why = nil, OutcomeUndecided, "--budget 10m spent"
			return r
		}(),
		func() Result {
			r := recommended()
			r.Recommendation = &Recommendation{Unlimited: true, PeriodUs: 100_000}
			return r
		}(),
	} {
		var buf bytes.Buffer
		require.NoError(t, Write(&buf, r, render.Gobench, 0))
		assert.Contains(t, buf.String(), "kernel: 6.18.0-1-amd64\n")
		assert.NotContains(t, buf.String(), "Benchmark")
		buf.Reset()
		require.NoError(t, Write(&buf, r, render.GitHubActionBenchmark, 0))
		assert.JSONEq(t, "[]", buf.String())
		buf.Reset()
		require.NoError(t, Write(&buf, r, render.BMF, 0))
		assert.JSONEq(t, "{}", buf.String())
		for _, f := range render.CIFormats {
			why := r.LeftOut(f)
			require.Len(t, why, 1, f)
			assert.Equal(t, report.KindNoBenchmark, why[0].Kind)
			assert.True(t, strings.HasPrefix(why[0].Text, "--format "+f+" holds no benchmark"), why[0].Text)
			assert.Contains(t, why[0].Text, r.Headline(), "says why there is none")
		}
		assert.Empty(t, r.LeftOut("text"), "text says it itself")
	}
}

// In BMF the recommendation's interval is the search's bracket: the level
// that failed below it and itself.
func TestSizeBMF(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, recommended(), render.BMF, 0))
	var doc map[string]map[string]map[string]float64
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, map[string]map[string]map[string]float64{
		"Size/slo=p99<=20ms/loop=closed/window=20_iterations/period=100ms": {"recommendation_cpus": {"value": 0.5, "lower_value": 0.45, "upper_value": 0.5}},
	}, doc)
}
