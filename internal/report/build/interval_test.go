package build

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
)

// encoded is histogram_hdr of the response times 1, 2, …, n ms.
func encoded(t *testing.T, n int) string {
	t.Helper()
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	for i := 1; i <= n; i++ {
		require.NoError(t, h.RecordValue(int64(i)*int64(time.Millisecond)))
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	return string(enc)
}

// On 1..n ms the k-th smallest is k ms: the interval's ends are the ranks
// QuantileCI gives, within the histogram's 0.1%, around the figure; p99.9
// has none below 3688 responses.
func TestCI95FromTheHistogram(t *testing.T) {
	const n = 1000
	l := report.LatencyMs{Min: 1, P50: 500, P99: 990, P999: 999, Max: n}
	ci := ci95(encoded(t, n), l)
	require.NotNil(t, ci)
	for _, c := range []struct {
		q      float64
		got    *[2]float64
		figure float64
	}{{0.5, ci.P50, 500}, {0.99, ci.P99, 990}} {
		lo, hi, ok := stats.QuantileCI(n, c.q, 0.95)
		require.True(t, ok)
		require.NotNil(t, c.got, "q=%v", c.q)
		assert.InEpsilon(t, float64(lo), c.got[0], 0.002, "q=%v: the %d-th smallest", c.q, lo)
		assert.InEpsilon(t, float64(hi), c.got[1], 0.002, "q=%v: the %d-th smallest", c.q, hi)
		assert.LessOrEqual(t, c.got[0], c.figure)
		assert.GreaterOrEqual(t, c.got[1], c.figure)
	}
	assert.Nil(t, ci.P999, "1000 responses: no interval for p99.9")
	assert.LessOrEqual(t, ci.P99[1], float64(n), "within the max")

	assert.Nil(t, ci95("", l), "no histogram")
	assert.Nil(t, ci95("not base64", l))
	assert.Nil(t, ci95(encoded(t, n), report.LatencyMs{None: true}))
}

// No response: every figure null in the JSON (never 0), no interval, and
// no warning judges a figure that is not there; the nulls read back as
// None.
func TestBuildLatencyNoResponses(t *testing.T) {
	in := quietLatency()
	in.Result.Completed, in.Result.Dropped = 0, in.Result.Offered
	in.Result.Mean, in.Result.Min, in.Result.P50, in.Result.P90, in.Result.P99, in.Result.P999, in.Result.Max = 0, 0, 0, 0, 0, 0, 0
	in.Result.Histogram = ""
	r := BuildLatency(in)
	assert.True(t, r.LatencyMs.None)
	assert.Nil(t, r.LatencyMsCI95)
	for _, w := range r.Warnings {
		assert.NotContains(t, []string{report.KindNearFloor, report.KindFewRequests, report.KindWideInterval}, w.Kind, "%q from no response", w.Text)
	}
	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, r))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, map[string]any{"mean": nil, "min": nil, "p50": nil, "p90": nil, "p99": nil, "p999": nil, "max": nil}, doc["latency_ms"])
	v, ok := doc["latency_ms_ci95"]
	assert.True(t, ok)
	assert.Nil(t, v)
	var back report.Latency
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	assert.True(t, back.LatencyMs.None, "null reads back as no figure")

	// With responses, numbers, and intervals beside them.
	in = quietLatency()
	in.Result.Histogram = encoded(t, 4000)
	r = BuildLatency(in)
	buf.Reset()
	require.NoError(t, report.WriteJSON(&buf, r))
	doc = nil
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, 9.0, doc["latency_ms"].(map[string]any)["p99"])
	ci, ok := doc["latency_ms_ci95"].(map[string]any)
	require.True(t, ok, "%v", doc["latency_ms_ci95"])
	assert.Len(t, ci["p999"], 2, "[low, high]")
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	assert.False(t, back.LatencyMs.None)
	assert.Equal(t, 9.0, back.LatencyMs.P99)
}

// The interval's width over its figure: past MaxIntervalWidth a warning
// says which, and how many times the requests (the width shrinks as
// 1/√n) or runs would narrow it.
func TestWideIntervalWarning(t *testing.T) {
	r := BuildLatency(quietLatency()) // p50 2.5, p99 9, p99.9 15 ms, 40 s
	r.Warnings = nil
	r.LatencyMsCI95 = &report.LatencyCI95{P50: &[2]float64{2.4, 2.6}, P99: &[2]float64{8, 12.4}, P999: &[2]float64{14, 21}}
	assert.Empty(t, CheckLatency(r, Background{}, DefaultThresholds), "p99's spans 49%, p99.9's 47%")

	r.LatencyMsCI95.P99 = &[2]float64{8, 13.4} // 60%
	w := CheckLatency(r, Background{}, DefaultThresholds)
	require.Equal(t, []string{"wide interval"}, headlines(w))
	assert.Contains(t, w[0].Text, "wide interval: p99 9.00 ms has a 95% interval of 8.00 ms–13.40 ms, 60% of it;")
	assert.NotContains(t, w[0].Text, "p50")
	// (0.6/0.5)² = 1.44: twice the requests, 80 s of the 40 s run.
	assert.Contains(t, w[0].Text, "about 2× the requests (--duration 80s at this rate)")
	assert.Contains(t, w[0].Text, "or 2 runs with other --seed values, pooled")

	r.LatencyMsCI95 = nil
	assert.Empty(t, CheckLatency(r, Background{}, DefaultThresholds), "no interval, nothing to judge")
}
