//go:build linux

package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The latency floor beside its peers, in one run: `latency --cgroup current
// --work 0 --rate 200 --duration 10s` (2000 requests that need nothing but
// to be delivered) against cyclictest at the same rate (`-q -m -t1 -i 5000
// -l 2000 -h 10000`: the machine's timer wake-up latency, the first link of
// our request path), and schbench (`-R 200 -n 0 -F 4 -r 10`) where it is on
// PATH. Ours and cyclictest measure from the scheduled instant; schbench's
// request latency starts when the request is sent, which hides a late
// sender (the coordinated omission we refuse), so it is shown, not
// compared.
//
// cyclictest runs twice: as above, which is how people run it, and under
// the conditions our workers have, which is what measures the harness's
// own cost: as above, cyclictest holds /dev/cpu_dma_latency at 0 (idle
// CPUs poll instead of halting) and its thread keeps the default 50 µs
// timer slack; ours touches no power setting and sets its workers' slack
// to 1 ns. So the second run adds --laptop and starts cyclictest with a
// 1 ns slack (its threads inherit it).
//
// With THROTTLEBENCH_BASELINE_BIN set to another build of throttlebench
// (the one before a change), its floor runs in the same rotation and is
// shown beside ours: before and after from the same run.
//
// The tools take turns, floorRounds rounds of each, and each tool's
// samples are pooled over its rounds; the metrics are each tool's p50, p99
// and p99.9 in µs, ours over each cyclictest's, the floor our calibration
// reported (floor_ms), and the 1-minute load average at the start. Run it
// on an idle machine: the load says whether it was.

// floorRounds is how many times each tool runs: the machine's noise moves
// a p99 of 2000 samples by tens of µs from one run to the next.
const floorRounds = 3

var (
	floorArgs      = []string{"latency", "--cgroup", "current", "--work", "0", "--rate", "200", "--duration", "10s"}
	cyclictestArgs = []string{"-q", "-m", "-t1", "-i", "5000", "-l", "2000", "-h", "10000"}
	schbenchArgs   = []string{"-R", "200", "-n", "0", "-F", "4", "-r", "10"}
)

func BenchmarkLatencyFloorPeers(b *testing.B) {
	cyclictest := peer(b, "cyclictest")
	schbench, _ := exec.LookPath("schbench")
	if schbench == "" {
		b.Log("schbench: not on PATH (not packaged for Debian): not run")
	}
	load := loadAverage(b)
	newHist := func() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(time.Hour), 3) }
	baseline := os.Getenv("THROTTLEBENCH_BASELINE_BIN")
	var ours, cyc, like, base *hdrhistogram.Histogram
	var sch []schbenchPercentiles
	var floors []floorMs
	for b.Loop() {
		ours, cyc, like, base = newHist(), newHist(), newHist(), newHist()
		for range floorRounds {
			h, f := runFloor(b, binary)
			ours.Merge(h)
			floors = append(floors, f)
			if baseline != "" {
				h, _ := runFloor(b, baseline)
				base.Merge(h)
			}
			if cyclictest != "" {
				cyc.Merge(runCyclictest(b, cyclictest, false))
				like.Merge(runCyclictest(b, cyclictest, true))
			}
			if schbench != "" {
				sch = append(sch, runSchbench(b, schbench))
			}
		}
	}
	us := func(h *hdrhistogram.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1e3 }
	quantiles := []struct {
		name string
		q    float64
	}{{"p50", 50}, {"p99", 99}, {"p999", 99.9}}
	for _, q := range quantiles {
		b.ReportMetric(us(ours, q.q), "ours-"+q.name+"-µs")
		if cyc.TotalCount() > 0 {
			b.ReportMetric(us(cyc, q.q), "cyclictest-"+q.name+"-µs")
			b.ReportMetric(us(like, q.q), "cyclictest-laptop-slack1ns-"+q.name+"-µs")
			b.ReportMetric(us(ours, q.q)/us(cyc, q.q), q.name+"-ours/cyclictest")
			b.ReportMetric(us(ours, q.q)/us(like, q.q), q.name+"-ours/cyclictest-laptop-slack1ns")
		}
	}
	var f floorMs
	for _, x := range floors {
		n := float64(len(floors))
		f.P50, f.P99, f.P999 = f.P50+x.P50/n, f.P99+x.P99/n, f.P999+x.P999/n
	}
	b.ReportMetric(f.P50*1e3, "floor-calibration-p50-µs")
	b.ReportMetric(f.P99*1e3, "floor-calibration-p99-µs")
	b.ReportMetric(load, "load1")
	b.ReportMetric(0, "ns/op")

	var out strings.Builder
	fmt.Fprintf(&out, "the latency floor beside cyclictest, %d rounds each, taking turns; load average %.2f at the start\n", floorRounds, load)
	row := func(name string, n int64, p50, p99, p999 float64) {
		fmt.Fprintf(&out, "  %-82s %7d %7.0f %7.0f %8.0f\n", name, n, p50, p99, p999)
	}
	fmt.Fprintf(&out, "  %-82s %7s %7s %7s %8s\n", "tool (µs)", "samples", "p50", "p99", "p99.9")
	row("throttlebench "+strings.Join(floorArgs, " "), ours.TotalCount(), us(ours, 50), us(ours, 99), us(ours, 99.9))
	row("  its floor_ms (the calibration before each run, mean of the runs)", int64(len(floors)), f.P50*1e3, f.P99*1e3, f.P999*1e3)
	if baseline != "" {
		row("the same, "+baseline+" (THROTTLEBENCH_BASELINE_BIN)", base.TotalCount(), us(base, 50), us(base, 99), us(base, 99.9))
		for _, q := range quantiles {
			b.ReportMetric(us(base, q.q), "baseline-"+q.name+"-µs")
		}
	}
	if cyc.TotalCount() > 0 {
		row("cyclictest "+strings.Join(cyclictestArgs, " "), cyc.TotalCount(), us(cyc, 50), us(cyc, 99), us(cyc, 99.9))
		row("cyclictest --laptop "+strings.Join(cyclictestArgs, " ")+", 1 ns timer slack", like.TotalCount(), us(like, 50), us(like, 99), us(like, 99.9))
	}
	for i, s := range sch {
		row(fmt.Sprintf("schbench %s (clock from the send), run %d", strings.Join(schbenchArgs, " "), i+1), s.n, s.p50, s.p99, s.p999)
		if i == len(sch)-1 {
			b.ReportMetric(s.p50, "schbench-p50-µs")
			b.ReportMetric(s.p99, "schbench-p99-µs")
			b.ReportMetric(s.p999, "schbench-p999-µs")
		}
	}
	b.Log(out.String())
}

// peer runs test/bench/setup.sh (which installs what it can) and finds
// name on PATH; "" with the reason logged when it is not there.
func peer(b *testing.B, name string) string {
	_, file, _, _ := runtime.Caller(0)
	setup := filepath.Join(filepath.Dir(file), "..", "bench", "setup.sh")
	if out, err := exec.Command("bash", setup).CombinedOutput(); err != nil || len(out) > 0 {
		b.Logf("%s: %s %v", setup, bytes.TrimSpace(out), err)
	}
	path, err := exec.LookPath(name)
	if err != nil {
		b.Logf("%s: not on PATH, not run (install Debian's rt-tests: sudo bash test/bench/setup.sh)", name)
		return ""
	}
	return path
}

// floorMs is the calibration latency reports.
type floorMs struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// runFloor runs the floor with the binary at path and returns its response
// times and calibration (zero where it reports none).
func runFloor(b *testing.B, path string) (*hdrhistogram.Histogram, floorMs) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := runCmd(b, exec.CommandContext(ctx, path, jsonByDefault(floorArgs)...))
	require.Equal(b, 0, o.code, o.stderr)
	var r struct {
		Histogram string   `json:"histogram_hdr"`
		Floor     *floorMs `json:"floor_ms"`
	}
	require.NoError(b, json.Unmarshal([]byte(o.stdout), &r))
	h, err := hdrhistogram.Decode([]byte(r.Histogram))
	require.NoError(b, err)
	if r.Floor == nil {
		return h, floorMs{}
	}
	return h, *r.Floor
}

// runCyclictest runs cyclictest and returns its latencies (µs buckets, as
// ns; an overflow as the histogram's end). like: under our workers'
// conditions, --laptop (no hold on /dev/cpu_dma_latency) and a 1 ns timer
// slack, set on this thread before it forks the child, which takes it as
// its default (the default is what cyclictest's thread gets back when it
// leaves SCHED_FIFO at its start).
func runCyclictest(b *testing.B, path string, like bool) *hdrhistogram.Histogram {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := cyclictestArgs
	if like {
		args = append([]string{"--laptop"}, args...)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		require.NoError(b, unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0))
		defer func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0) }()
	}
	out, err := exec.CommandContext(ctx, path, args...).Output()
	require.NoError(b, err, "cyclictest %s", strings.Join(args, " "))
	h, err := parseCyclictest(out)
	require.NoError(b, err)
	return h
}

// parseCyclictest reads cyclictest -h's histogram: a line per µs, "bucket
// count", and comments; "# Histogram Overflows" counts what fell beyond
// its last bucket.
func parseCyclictest(out []byte) (*hdrhistogram.Histogram, error) {
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	sc := bufio.NewScanner(bytes.NewReader(out))
	last := int64(0)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# Histogram Overflows:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("cyclictest: %q: %w", line, err)
			}
			if err := h.RecordValues((last+1)*1000, n); err != nil {
				return nil, err
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || strings.HasPrefix(line, "#") {
			continue
		}
		us, err1 := strconv.ParseInt(f[0], 10, 64)
		n, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("cyclictest: not a histogram line: %q", line)
		}
		last = us
		if n > 0 {
			if err := h.RecordValues(us*1000, n); err != nil {
				return nil, err
			}
		}
	}
	if h.TotalCount() == 0 {
		return nil, fmt.Errorf("cyclictest: no histogram in its output")
	}
	return h, nil
}

type schbenchPercentiles struct {
	n              int64
	p50, p99, p999 float64 // µs
}

func runSchbench(b *testing.B, path string) schbenchPercentiles {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, schbenchArgs...).CombinedOutput()
	require.NoError(b, err, "schbench %s: %s", strings.Join(schbenchArgs, " "), out)
	p, err := parseSchbench(out)
	require.NoError(b, err)
	return p
}

var (
	schbenchBlock = regexp.MustCompile(`Request Latencies percentiles \(usec\).*\((\d+) total samples\)`)
	schbenchLine  = regexp.MustCompile(`^\s*\*?\s*(\d+\.\d+)th:\s*(\d+)`)
)

// parseSchbench reads the last "Request Latencies percentiles" block of
// schbench's output (it prints one per reporting interval and the last at
// the end).
func parseSchbench(out []byte) (schbenchPercentiles, error) {
	var p schbenchPercentiles
	found, in := false, false
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "percentiles") {
			m := schbenchBlock.FindStringSubmatch(line)
			if in = m != nil; in {
				found = true
				p = schbenchPercentiles{}
				p.n, _ = strconv.ParseInt(m[1], 10, 64)
			}
			continue
		}
		m := schbenchLine.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[1] {
		case "50.0":
			p.p50 = v
		case "99.0":
			p.p99 = v
		case "99.9":
			p.p999 = v
		}
	}
	if !found {
		return p, fmt.Errorf("schbench: no request latencies in its output")
	}
	return p, nil
}

// loadAverage is the 1-minute load average, NaN where unreadable.
func loadAverage(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		b.Logf("load average: %v", err)
		return math.NaN()
	}
	v, err := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}
