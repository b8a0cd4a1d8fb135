package plot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// onOffTrace is 2 s of requests every 20 ms, throttled on CPU 0 from 0.3 s
// to 0.4 s and on CPU 1 from 1.3 s to 1.45 s: the requests in those
// stretches took the throttle's time.
func onOffTrace() throttle.Trace {
	const ms = int64(1e6)
	t0 := int64(5e9)
	tr := throttle.Trace{T0: t0, T1: t0 + 2000*ms, What: "request", Events: []throttle.Event{
		{CPU: 0, TID: 1, Start: t0 + 300*ms, End: t0 + 400*ms},
		{CPU: 1, TID: 2, Start: t0 + 1300*ms, End: t0 + 1450*ms},
	}}
	for a := int64(0); a < 2000; a += 20 {
		d := 3 * ms
		for _, e := range tr.Events {
			if s := t0 + a*ms; s >= e.Start && s < e.End {
				d += e.End - s
			}
		}
		tr.Spans = append(tr.Spans, throttle.Span{Start: t0 + a*ms, End: t0 + a*ms + d, CPU: -1})
	}
	return tr
}

func TestSaveTimeline(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "t.svg")
	require.NoError(t, SaveTimeline(svg, onOffTrace(), "latency --trace"))
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	s := string(data)
	for _, want := range []string{"latency --trace", "response time (ms)", "throttled (any CPU)", "requests that met a throttle", "requests that met no throttle", "CPU"} {
		assert.Contains(t, s, want)
	}
	png := filepath.Join(dir, "t.png")
	require.NoError(t, SaveTimeline(png, onOffTrace(), "x"))
	st, err := os.Stat(png)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))

	it := onOffTrace()
	it.What = "iteration"
	require.NoError(t, SaveTimeline(svg, it, "run --trace"))
	data, _ = os.ReadFile(svg)
	assert.True(t, strings.Contains(string(data), "iteration duration (ms)"))

	err = SaveTimeline(filepath.Join(dir, "empty.svg"), throttle.Trace{}, "x")
	assert.ErrorContains(t, err, "nothing was traced")
	assert.NoFileExists(t, filepath.Join(dir, "empty.svg"))
	assert.Error(t, SaveTimeline(filepath.Join(dir, "t.pdf"), onOffTrace(), "x"))
}

// With the requests split by cause, a panel between the two stacks each
// request's time: the held part of a request in a throttle is drawn, as
// tall as it was held; without the split, no such panel.
func TestTimelineCauses(t *testing.T) {
	tr := onOffTrace()
	for _, s := range tr.Spans {
		d := s.End - s.Start
		held := max(d-3e6, 0)
		tr.Parts = append(tr.Parts, throttle.Parts{throttle.OnCPU: 2e6, throttle.Held: held, throttle.Waiting: 0.5e6, throttle.OffCPU: 0.5e6})
		tr.Known = append(tr.Known, true)
	}
	sec := func(ns int64) float64 { return float64(ns-tr.T0) / 1e9 }
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	p, legend := causesPanel(tr, sec, ms, 0, 2)
	require.NotNil(t, p)
	var names []string
	for _, e := range legend {
		names = append(names, e.text)
	}
	assert.Equal(t, []string{"on CPU", "held by the quota", "waiting for a CPU", "off CPU"}, names)
	assert.InDelta(t, 153*1.05, p.Y.Max, 1e-9, "the tallest bar: the request at 1.3 s, held 150 ms")

	dir := t.TempDir()
	svg := filepath.Join(dir, "t.svg")
	require.NoError(t, SaveTimeline(svg, tr, "latency --trace"))
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(data), "time by cause (each a bar at its scheduled arrival)"), "the panel's title")
	require.NoError(t, SaveTimeline(svg, onOffTrace(), "latency --trace"))
	data, _ = os.ReadFile(svg)
	assert.False(t, strings.Contains(string(data), "by cause"), "no split, no panel")
}
