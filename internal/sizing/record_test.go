package sizing

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
)

// A window that ended with its last response before the schedule did
// (on-off arrivals) has the rest as idle intervals in the rules' trace,
// as the service it stands for has: 1.5 s of schedule, responses done at
// 900 ms, is 9 intervals sampled and 6 idle.
func TestTraceIdleTail(t *testing.T) {
	slo, err := size.ParseSLO("p99<=50ms", size.ResponseTimes)
	require.NoError(t, err)
	p := Plan{Open: true, SLO: slo, Window: "1.5s", WindowLength: 1500 * time.Millisecond}
	cpu := 500.0
	m := Measured{Latency: &report.Latency{OfferedRPS: 100, AchievedRPS: 100, WindowMs: 901, CPUMs: &cpu,
		CPUs100ms: []float64{1, 1, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5}}}
	w := p.record(m, math.NaN())
	tr, ok := w.trace()
	require.True(t, ok)
	assert.Equal(t, 15, tr.Len())
	assert.Equal(t, []float64{1, 1, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 0, 0, 0, 0, 0, 0}, tr.CPUs())
	assert.Equal(t, []float64{1, 1, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5}, m.Latency.CPUs100ms, "the report's own trace is left as it was")
}
