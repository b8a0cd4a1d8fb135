package usage

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

// A cgroup that used no CPU gets no limit of 0, which Docker reads as none
// (issue 46): the text says there is nothing to advise, and so does a
// warning, which the JSON carries.
func TestNoLimitToAdvise(t *testing.T) {
	f := Build(Recording{Trace: trace(0, 0, 0, 0, 0)}, Meta{Target: 0.01})
	assert.Equal(t, "no CPU used: no limit to advise", f.NoLimit())
	var text bytes.Buffer
	require.NoError(t, Write(&text, f, "text"))
	out := text.String()
	assert.Contains(t, out, "\nlimit: no CPU used: no limit to advise\n")
	assert.NotContains(t, out, "docker run --cpus 0")
	assert.NotContains(t, out, "resources.limits.cpu: 0")
	assert.NotContains(t, out, "burst that absorbs", "no burst above no limit")
	assert.Contains(t, out, "warning: no CPU used: no limit to advise (advice.limit_cpus 0 is no limit to set: docker run reads --cpus 0 as no limit at all)\n")

	var js bytes.Buffer
	require.NoError(t, Write(&js, f, "json"))
	var back struct{ Warnings []report.Warning }
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	assert.Contains(t, back.Warnings, report.Warning{Kind: report.KindNoLimitToAdvise, Text: "no CPU used: no limit to advise (advice.limit_cpus 0 is no limit to set: docker run reads --cpus 0 as no limit at all)"})

	// With --limit given, the burst above it is still advised.
	f = Build(Recording{Trace: trace(0, 0, 0)}, Meta{Target: 0.01, Limit: 0.5})
	text.Reset()
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "\nlimit: no CPU used: no limit to advise\nburst that absorbs every spike above 0.500 CPUs")

	// CPU in fewer intervals than the target leaves above: no limit either,
	// and not "no CPU used".
	busy := make([]float64, 200)
	busy[3] = 30 // 0.3 CPUs in one interval of 200
	f = Build(Recording{Trace: trace(busy...)}, Meta{Target: 0.01})
	assert.Equal(t, "no more than 1.0% of the intervals used any CPU (the busiest 0.300 CPUs): no limit to advise at --target 1.0%", f.NoLimit())

	// A limit there is: no note.
	assert.Empty(t, Build(Recording{Trace: trace(50, 50)}, Meta{Target: 0.01}).NoLimit())
}

// A limit below the kernel's least quota at the default period (1 ms per
// 100 ms, Docker's least --cpus 0.01) is spelled as that least, saying so.
func TestTinyLimitIsApplicable(t *testing.T) {
	f := Build(Recording{Trace: trace(0.3, 0.3, 0.3)}, Meta{Target: 0.01, Period: 100 * time.Millisecond})
	assert.InDelta(t, 0.003, f.Advice.LimitCPUs, 1e-9, "the advice itself is what was used")
	var text bytes.Buffer
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "  resources.limits.cpu: 10m · docker run --cpus 0.01 (raised from 0.003 CPUs to the kernel's least quota, 1ms per 100ms period)\n")
	assert.NotContains(t, text.String(), "--cpus 0.003")
}
