package plot

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"

	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

func latencyRow(cfg sweep.Config, offered, eff, p50, p99 float64) latency.Row {
	r := &report.Latency{OfferedRPS: offered, LatencyMs: report.LatencyMs{P50: p50, P99: p99}}
	r.Config = report.LatencyConfig{Rate: offered, Arrivals: "onoff", WorkMs: 5, Workers: 4}
	r.Cgroup.EffectiveCPUs = eff
	return latency.Row{Config: cfg, Report: r}
}

// A burst A/B over rates: p99 and p50 against the offered rate, one
// colour per burst; one configuration skipped.
func latencyOverRates() []latency.Row {
	c := func(burst, rate string) sweep.Config {
		return sweep.Config{{Flag: "burst", Value: burst}, {Flag: "rate", Value: rate}}
	}
	return []latency.Row{
		latencyRow(c("0", "40"), 40, 1, 6, 95), latencyRow(c("0", "80"), 80, 1, 8, 180), latencyRow(c("0", "120"), 120, 1, 12, 400),
		latencyRow(c("100ms", "40"), 40, 1, 5.5, 7), latencyRow(c("100ms", "80"), 80, 1, 6, 12),
		{Config: c("100ms", "120"), Skipped: "refused by the kernel"},
	}
}

// The same A/B over the CPU share, the rate fixed.
func latencyOverCPUs() []latency.Row {
	c := func(burst, cpus string) sweep.Config {
		return sweep.Config{{Flag: "burst", Value: burst}, {Flag: "cpus", Value: cpus}}
	}
	return []latency.Row{
		latencyRow(c("0", "0.5"), 40, 0.5, 10, 300), latencyRow(c("0", "1"), 40, 1, 6, 95), latencyRow(c("0", "2"), 40, 2, 5.2, 9),
		latencyRow(c("100ms", "0.5"), 40, 0.5, 9, 120), latencyRow(c("100ms", "1"), 40, 1, 5.5, 7), latencyRow(c("100ms", "2"), 40, 2, 5.1, 6),
	}
}

// xys pairs its arguments as x, y, x, y, ….
func xys(v ...float64) plotter.XYs {
	var pts plotter.XYs
	for i := 0; i+1 < len(v); i += 2 {
		pts = append(pts, plotter.XY{X: v[i], Y: v[i+1]})
	}
	return pts
}

// svgTexts parses path as XML with an <svg> root, failing the test if it
// is not, and returns its text content.
func svgTexts(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(data))
	var root string
	var texts strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch v := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = v.Name.Local
			}
		case xml.CharData:
			texts.Write(v)
			texts.WriteString("\n")
		}
	}
	require.Equal(t, "svg", root)
	return texts.String()
}

func TestLatencyPanelOverRates(t *testing.T) {
	p, err := latencyPanel(latencyOverRates())
	require.NoError(t, err)
	assert.Equal(t, "offered rate (requests/s)", p.x.label)
	require.Len(t, p.lines, 4, "p99 and p50 for each burst")
	assert.Equal(t, []string{"burst=0 p99", "burst=0 p50", "burst=100ms p99", "burst=100ms p50"},
		[]string{p.lines[0].label, p.lines[1].label, p.lines[2].label, p.lines[3].label})
	assert.Equal(t, xys(40, 95, 80, 180, 120, 400), p.lines[0].XYs)
	assert.Equal(t, xys(40, 5.5, 80, 6), p.lines[3].XYs, "the skipped configuration is left out")
	assert.Empty(t, p.lines[0].Dashes, "p99 solid")
	assert.NotEmpty(t, p.lines[1].Dashes, "p50 dashed")
	assert.Equal(t, p.lines[0].Color, p.lines[1].Color, "one colour per burst")
	assert.NotEqual(t, p.lines[0].Color, p.lines[2].Color)
	assert.NotNil(t, p.lines[0].marks, "a marker at every point")
	assert.NotEqual(t, p.lines[0].marks.Shape, p.lines[1].marks.Shape, "p50's markers told from p99's where a series is one point")
	assert.True(t, p.y.log, "5.5 ms to 400 ms spans decades")
	assert.Contains(t, p.title, "onoff arrivals, 5 ms work per request, 4 workers")
}

func TestLatencyPanelOverCPUs(t *testing.T) {
	p, err := latencyPanel(latencyOverCPUs())
	require.NoError(t, err)
	assert.Equal(t, "CPU share (effective CPUs)", p.x.label, "the rate does not vary")
	require.Len(t, p.lines, 4)
	assert.Equal(t, "burst=0 p99", p.lines[0].label, "the share is the x axis, not a label")
	assert.Equal(t, xys(0.5, 300, 1, 95, 2, 9), p.lines[0].XYs)
	assert.Equal(t, xys(0.5, 9, 1, 5.5, 2, 5.1), p.lines[3].XYs)
}

// A burst A/B at one limit and one rate (latency --cpus 1 --burst
// 0,20ms,50ms --plot): burst on the x axis, one line, where the CPU
// share put every point at x = 1 with burst in the legend alone.
func TestLatencyPanelOverBurst(t *testing.T) {
	row := func(burst string, us int64, p50, p99 float64) latency.Row {
		r := latencyRow(sweep.Config{{Flag: "burst", Value: burst}, {Flag: "cpus", Value: "1"}}, 40, 1, p50, p99)
		r.Report.Cgroup.BurstUs = us
		return r
	}
	p, err := latencyPanel([]latency.Row{row("0s", 0, 6, 95), row("20ms", 20000, 5.5, 40), row("50ms", 50000, 5.2, 9)})
	require.NoError(t, err)
	assert.Equal(t, "CPU burst (ms), at 1 CPU", p.x.label)
	require.Len(t, p.lines, 2, "one series: burst is the axis")
	assert.Equal(t, "p99", p.lines[0].label)
	assert.Equal(t, xys(0, 95, 20, 40, 50, 9), p.lines[0].XYs)
	assert.LessOrEqual(t, p.x.min, 0.0)
	assert.GreaterOrEqual(t, p.x.max, 50.0)
}

// With --trace, each configuration's p99 split by what its p99 requests
// spent their time on, a stacked bar at its place on the same axis: the
// burst A/B's held part where there is no burst, none with it.
func TestLatencyCausesByConfig(t *testing.T) {
	row := func(burst string, us int64, p99 float64, s report.Shares) latency.Row {
		r := latencyRow(sweep.Config{{Flag: "burst", Value: burst}, {Flag: "cpus", Value: "1"}}, 40, 1, 5, p99)
		r.Report.Cgroup.BurstUs = us
		r.Report.RequestThrottles = &report.RequestThrottles{Breakdown: &report.Breakdown{P99Share: s}}
		return r
	}
	rows := []latency.Row{
		row("0s", 0, 100, report.Shares{OnCPU: 0.2, Held: 0.7, Waiting: 0.1}),
		row("50ms", 50000, 10, report.Shares{OnCPU: 0.9, Waiting: 0.1}),
	}
	lat, err := latencyPanel(rows)
	require.NoError(t, err)
	p := causesByConfig(rows, lat)
	require.NotNil(t, p)
	assert.Equal(t, lat.x, p.x, "the same axis")
	require.Len(t, p.keys, 4)
	assert.Equal(t, "held by the quota", p.keys[1].text)
	require.Len(t, p.bands, 3, "on CPU, held, waiting: nothing was off CPU")
	held := p.bands[1].XYs
	require.Len(t, held, 1, "held at burst 0 alone")
	x0, y0 := held[0].XY(0)
	x1, _ := held[0].XY(1)
	_, y2 := held[0].XY(2)
	assert.InDelta(t, 20, y0, 1e-9, "on top of the 20 ms on CPU")
	assert.InDelta(t, 90, y2, 1e-9, "70 ms held")
	assert.Less(t, x0, 0.0)
	assert.Greater(t, x1, 0.0)
	assert.InDelta(t, 105, p.y.max, 1e-9)

	untraced := latencyOverCPUs()
	lat, err = latencyPanel(untraced)
	require.NoError(t, err)
	assert.Nil(t, causesByConfig(untraced, lat), "no breakdown, no panel")
}

func TestSaveLatencySVG(t *testing.T) {
	for name, rows := range map[string][]latency.Row{"rates": latencyOverRates(), "cpus": latencyOverCPUs()} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "latency.svg")
			require.NoError(t, SaveLatency(path, rows))
			s := svgTexts(t, path)
			for _, l := range []string{"burst=0 p99", "burst=0 p50", "burst=100ms p99", "burst=100ms p50"} {
				assert.Equal(t, 1, strings.Count(s, l+"\n"), "one legend entry: %s", l)
			}
			assert.Contains(t, s, "response time (ms)")
			assert.Contains(t, s, "throttlebench latency")
		})
	}
}

func TestSaveLatencyPNG(t *testing.T) {
	for name, rows := range map[string][]latency.Row{"rates": latencyOverRates(), "cpus": latencyOverCPUs()} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "latency.png")
			require.NoError(t, SaveLatency(path, rows))
			img := decodePNG(t, path)
			assert.Equal(t, 9*120, img.Bounds().Dx(), "9 in at 120 dpi")
			assert.Equal(t, 6*120, img.Bounds().Dy())
		})
	}
}

// Nothing ran: an error, and no file.
func TestSaveLatencyAllSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latency.svg")
	err := SaveLatency(path, []latency.Row{{Config: sweep.Config{{Flag: "burst", Value: "0"}}, Skipped: "no"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "every configuration was skipped")
	_, statErr := os.Stat(path)
	assert.True(t, os.IsNotExist(statErr), "no file written")

	assert.Error(t, SaveLatency(path, nil))
}

// A single configuration, or one value per series: a picture all the same.
func TestSaveLatencyOnePoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one.svg")
	require.NoError(t, SaveLatency(path, []latency.Row{latencyRow(nil, 50, 1, 5, 9)}))
	s := svgTexts(t, path)
	assert.Contains(t, s, "p99\n")
	assert.Contains(t, s, "p50\n")
}

func TestSaveLatencyRejectsOtherFormats(t *testing.T) {
	assert.Error(t, SaveLatency(filepath.Join(t.TempDir(), "x.pdf"), latencyOverRates()))
}

// A --target's title names the URL, the server and the rate, and none of
// the built-in workload's fields; a configuration with no response has
// no point (never one at 0).
func TestLatencyTargetTitle(t *testing.T) {
	rows := latencyOverCPUs()
	for _, r := range rows {
		r.Report.Config.WorkMs, r.Report.Config.Workers = 0, 0
		r.Report.Config.TargetConfig = &report.TargetConfig{Target: "http://127.0.0.1:8081/", Method: "GET",
			Serve: []string{"python3", "server.py", "8081"}}
	}
	rows[0].Report.LatencyMs = report.LatencyMs{None: true}
	p, err := latencyPanel(rows)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(p.title, "throttlebench latency --target GET http://127.0.0.1:8081/: onoff arrivals at 40 requests/s, server: python3 server.py 8081\n"), p.title)
	assert.NotContains(t, p.title, "work per request")
	assert.NotContains(t, p.title, "worker")
	for _, l := range p.lines {
		for _, pt := range l.XYs {
			assert.NotZero(t, pt.Y, "%s", l.label)
		}
	}
	// Over rates, the rate is the x axis, not in the title; a server
	// already running is said so.
	rows = latencyOverRates()
	for _, r := range rows {
		if r.Report != nil {
			r.Report.Config.TargetConfig = &report.TargetConfig{Target: "http://h/", Method: "POST"}
		}
	}
	p, err = latencyPanel(rows)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(p.title, "throttlebench latency --target POST http://h/: onoff arrivals, a server already running\n"), p.title)
}

// --cpus 0.5,1,max: the unlimited arm is a point at the right end,
// labelled "max" above its p99 (once per series); without a limited arm
// beside it, nothing is labelled.
func TestLatencyMarksTheUnlimitedArm(t *testing.T) {
	rows := latencyOverCPUs()
	for _, r := range rows {
		r.Report.Cgroup.QuotaUs = int64(r.Report.Cgroup.EffectiveCPUs * 100000)
	}
	rows[2].Report.Cgroup.QuotaUs, rows[5].Report.Cgroup.QuotaUs = -1, -1 // the 2-CPU arms: unlimited on a 2-CPU machine
	p, err := latencyPanel(rows)
	require.NoError(t, err)
	require.Len(t, p.labels, 1)
	assert.Equal(t, xys(2, 9, 2, 6), p.labels[0].XYs, "above each series' unlimited p99")
	assert.Equal(t, []string{"max", "max"}, p.labels[0].Labels)
	assert.Contains(t, p.x.label, "max: the CPUs an unlimited slice may use")

	path := filepath.Join(t.TempDir(), "max.svg")
	require.NoError(t, SaveLatency(path, rows))
	assert.Equal(t, 3, strings.Count(svgTexts(t, path), "max"), "two labels, and the x axis's note")

	for _, r := range rows {
		r.Report.Cgroup.QuotaUs = -1
	}
	p, err = latencyPanel(rows)
	require.NoError(t, err)
	assert.Empty(t, p.labels, "unlimited alone: nothing to tell apart")
}

// A configuration measured under contention is labelled so above its p99.
func TestLatencyMarksContendedPoints(t *testing.T) {
	rows := latencyOverCPUs()
	rows[1].Report.Contention = &report.Contention{WaitShare: 0.3, Contended: true}
	p, err := latencyPanel(rows)
	require.NoError(t, err)
	require.Len(t, p.labels, 1)
	assert.Equal(t, []string{"contended"}, p.labels[0].Labels)
	assert.Contains(t, p.x.label, "contended: the work waited for CPUs others held")
}
