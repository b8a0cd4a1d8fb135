package httpload_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/throttlebench/throttlebench/internal/httpload"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// nullServerEnv makes the test binary a trivial HTTP server (TestMain):
// the target of the benchmarks runs in a process of its own, as a real
// server on the same machine would.
const nullServerEnv = "HTTPLOAD_NULL_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(nullServerEnv) == "1" {
		serveNull()
		return
	}
	os.Exit(m.Run())
}

// serveNull answers every request with 200 and no body, on a free port of
// 127.0.0.1 whose URL it prints, until its stdin closes.
func serveNull() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/\n", ln.Addr())
	go func() { _, _ = bufio.NewReader(os.Stdin).ReadString('\n'); os.Exit(0) }()
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
}

// startNullProcess starts the test binary as a null server and returns
// its URL; the process ends with the benchmark.
func startNullProcess(tb testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), nullServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("null server: %v", err)
	}
	return strings.TrimSpace(line)
}

func fixed(rate float64, d time.Duration) []time.Duration {
	n := int(rate * d.Seconds())
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = time.Duration(float64(i) / rate * 1e9)
	}
	return s
}

// benchConnections is our pool in the side-by-side: vegeta runs with its
// defaults (10 workers, more as needed), as the issue measured it.
const benchConnections = 32

func runOurs(tb testing.TB, url string, rate float64, d time.Duration) httpload.Result {
	res, err := httpload.Run(context.Background(), httpload.Config{Request: runspec.Request{URL: url, Connections: benchConnections, Timeout: 5 * time.Second}}, fixed(rate, d))
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// runVegeta attacks url at rate for d through vegeta's library and returns
// its latencies (from its send: vegeta stamps a request when a worker
// takes it, after its pacer's hand-off), its count of errors and how long
// it took from its start to its last response.
func runVegeta(url string, rate float64, d time.Duration) (*hdrhistogram.Histogram, int, time.Duration) {
	h, _, errs, took := runVegetaSched(url, rate, d)
	return h, errs, took
}

// runVegetaSched is runVegeta, with vegeta's response times also from its
// own schedule (sched), as ours are: its constant pacer's hit n (from 0) is
// due (n+1)/rate after the attack's start, which is a few µs after our
// begin (its first hit's own stamp came 0.6 ms late once: no anchor).
func runVegetaSched(url string, rate float64, d time.Duration) (h, sched *hdrhistogram.Histogram, errs int, took time.Duration) {
	atk := vegeta.NewAttacker(vegeta.KeepAlive(true), vegeta.Timeout(5*time.Second))
	tgt := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: url})
	h, sched = hdrhistogram.New(1, int64(time.Hour), 3), hdrhistogram.New(1, int64(time.Hour), 3)
	begin := time.Now()
	var last time.Time
	for r := range atk.Attack(tgt, vegeta.ConstantPacer{Freq: int(rate), Per: time.Second}, d, "") {
		end := r.Timestamp.Add(r.Latency)
		if end.After(last) {
			last = end
		}
		if r.Error != "" || r.Code != http.StatusOK {
			errs++
			continue
		}
		_ = h.RecordValue(int64(r.Latency))
		due := begin.Add(time.Duration(float64(r.Seq+1) / rate * 1e9))
		_ = sched.RecordValue(max(int64(end.Sub(due)), 1))
	}
	return h, sched, errs, last.Sub(begin)
}

// BenchmarkVsVegeta is the client's floor beside vegeta's, against the same
// trivial Go server in a process of its own, taking turns, at 2,000 and
// 10,000 requests/s (benchRounds rounds of benchSpan each, pooled), then
// our highest rate held: ours response time from the scheduled arrival,
// vegeta's from its send.
func BenchmarkVsVegeta(b *testing.B) {
	url := startNullProcess(b)
	us := func(h *hdrhistogram.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1e3 }
	var out strings.Builder
	for b.Loop() {
		out.Reset()
		fmt.Fprintf(&out, "the client beside vegeta, against a null Go server in its own process, %d rounds of %v each, taking turns\n", benchRounds, benchSpan)
		fmt.Fprintf(&out, "  %-44s %8s %7s %8s %8s %8s %7s\n", "tool at rate (µs)", "requests", "errors", "p50", "p99", "p99.9", "max")
		for _, rate := range []float64{2000, 10000} {
			ours, veg, vegSched := hdrhistogram.New(1, int64(time.Hour), 3), hdrhistogram.New(1, int64(time.Hour), 3), hdrhistogram.New(1, int64(time.Hour), 3)
			oursErr, vegErr := 0, 0
			wake := hdrhistogram.New(1, int64(time.Hour), 3)
			for range benchRounds {
				r := runOurs(b, url, rate, benchSpan)
				ours.Merge(r.Hist)
				oursErr += r.Total() - r.OK
				for _, q := range r.Requests {
					_ = wake.RecordValue(int64(q.Start - q.Scheduled))
				}
				h, hs, e, _ := runVegetaSched(url, rate, benchSpan)
				veg.Merge(h)
				vegSched.Merge(hs)
				vegErr += e
			}
			row := func(name string, h *hdrhistogram.Histogram, errs int) {
				fmt.Fprintf(&out, "  %-44s %8d %7d %8.0f %8.0f %8.0f %7.0f\n", name, h.TotalCount(), errs, us(h, 50), us(h, 99), us(h, 99.9), float64(h.Max())/1e3)
			}
			fl, err := httpload.Floor(context.Background(), httpload.Config{Request: runspec.Request{URL: url, Connections: benchConnections}}, fixed(rate, benchSpan))
			if err != nil {
				b.Fatal(err)
			}
			row(fmt.Sprintf("httpload %d connections, %.0f/s", benchConnections, rate), ours, oursErr)
			row("  its Floor (a null server in its own process)", fl.Hist, fl.Total()-fl.OK)
			row(fmt.Sprintf("vegeta (defaults), %.0f/s", rate), veg, vegErr)
			row("  vegeta from its schedule, as ours", vegSched, vegErr)
			row("  of which httpload's send after the arrival", wake, 0)
			k := fmt.Sprintf("%.0fk", rate/1000)
			late := 0
			fwake := hdrhistogram.New(1, int64(time.Minute), 3)
			for _, q := range fl.Requests {
				_ = fwake.RecordValue(int64(q.Start - q.Scheduled))
				if q.Start-q.Scheduled > time.Millisecond {
					late++
				}
			}
			b.ReportMetric(us(fwake, 50), "floor-send-"+k+"-p50-µs")
			b.ReportMetric(float64(late), "floor-late-1ms-"+k)
			b.ReportMetric(us(ours, 50), "ours-"+k+"-p50-µs")
			b.ReportMetric(us(ours, 99), "ours-"+k+"-p99-µs")
			b.ReportMetric(us(veg, 50), "vegeta-"+k+"-p50-µs")
			b.ReportMetric(us(veg, 99), "vegeta-"+k+"-p99-µs")
		}
		// The highest rate each holds: every request 200, at 98% of
		// the rate or more over the run (from the first arrival to the
		// last response), a p99 of heldP99 or less (past it, a queue
		// builds), taking turns at each rate.
		held, vegHeld := 0.0, 0.0
		prev := 0.0
		for _, rate := range []float64{10000, 20000, 30000, 40000, 60000, 80000, 100000} {
			if held < prev && vegHeld < prev {
				break
			}
			if held == prev {
				r := runOurs(b, url, rate, maxSpan)
				got := float64(r.OK) / r.Elapsed.Seconds()
				ok := r.OK == r.Total() && got >= 0.98*rate && r.Quantile(99) <= heldP99
				fmt.Fprintf(&out, "  httpload at %5.0f/s for %v: %6d of %6d 200, %5.0f/s achieved, p50 %5.0f µs p99 %6.0f µs, held: %v\n",
					rate, maxSpan, r.OK, r.Total(), got, us(r.Hist, 50), us(r.Hist, 99), ok)
				if ok {
					held = rate
				}
			}
			if vegHeld == prev {
				h, errs, took := runVegeta(url, rate, maxSpan)
				n := int(rate * maxSpan.Seconds())
				got := float64(h.TotalCount()) / took.Seconds()
				ok := errs == 0 && int(h.TotalCount()) >= n*99/100 && got >= 0.98*rate && time.Duration(h.ValueAtQuantile(99)) <= heldP99
				fmt.Fprintf(&out, "  vegeta   at %5.0f/s for %v: %6d of %6d 200, %5.0f/s achieved, p50 %5.0f µs p99 %6.0f µs, held: %v\n",
					rate, maxSpan, h.TotalCount(), n, got, us(h, 50), us(h, 99), ok)
				if ok {
					vegHeld = rate
				}
			}
			prev = rate
		}
		b.ReportMetric(held, "ours-max-held-req/s")
		b.ReportMetric(vegHeld, "vegeta-max-held-req/s")
	}
	b.ReportMetric(0, "ns/op")
	// On stdout: a benchmark's log is cut to 10 lines without -v.
	fmt.Print(out.String())
}

const (
	benchRounds = 3
	benchSpan   = 5 * time.Second
	maxSpan     = 3 * time.Second
	heldP99     = 10 * time.Millisecond
)
