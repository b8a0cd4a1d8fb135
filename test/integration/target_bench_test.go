//go:build linux

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// BenchmarkTargetVsVegeta is latency --target, the command as a user runs
// it, beside vegeta (its library, defaults, keep-alive), against the same
// trivial Go server in a process of its own, taking turns, at 2,000 and
// 10,000 requests/s, three rounds of 5 s pooled: the CLI's response times
// from the scheduled arrival (its histogram_hdr), its floor_ms (200
// requests to its own null server first), vegeta's from its send and from
// its schedule. internal/httpload's BenchmarkVsVegeta is the same
// comparison for the client's package alone.
func BenchmarkTargetVsVegeta(b *testing.B) {
	url := startNullServer(b)
	dir := b.TempDir()
	us := func(h *hdrhistogram.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1e3 }
	var out strings.Builder
	for b.Loop() {
		out.Reset()
		fmt.Fprintf(&out, "\nlatency --target beside vegeta, a null Go server in its own process, %d rounds of %v, taking turns\n", 3, 5*time.Second)
		fmt.Fprintf(&out, "  %-46s %8s %7s %8s %8s %8s\n", "tool at rate (µs)", "requests", "errors", "p50", "p99", "p99.9")
		for _, rate := range []int{2000, 10000} {
			ours, veg, vegSched := newHist(), newHist(), newHist()
			oursErr, vegErr := 0, 0
			var floorP50, floorP99 []float64
			for range 3 {
				path := filepath.Join(dir, "r.json")
				cmd := exec.Command(binary, "latency", "--target", url, "--rate", fmt.Sprint(rate), "--arrivals", "fixed", "--duration", "5s",
					"--connections", "32", "--format", "json", "-o", path)
				if o, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, o)
				}
				var r struct {
					Hist    string                     `json:"histogram_hdr"`
					FloorMs struct{ P50, P99 float64 } `json:"floor_ms"`
					HTTP    struct {
						Requests  int `json:"requests"`
						Status2xx int `json:"status_2xx"`
					} `json:"http"`
				}
				data, err := os.ReadFile(path)
				if err == nil {
					err = json.Unmarshal(data, &r)
				}
				if err != nil {
					b.Fatal(err)
				}
				h, err := hdrhistogram.Decode([]byte(r.Hist))
				if err != nil {
					b.Fatal(err)
				}
				ours.Merge(h)
				oursErr += r.HTTP.Requests - r.HTTP.Status2xx
				floorP50, floorP99 = append(floorP50, r.FloorMs.P50*1e3), append(floorP99, r.FloorMs.P99*1e3)
				vh, vs, e := vegetaRun(url, rate, 5*time.Second)
				veg.Merge(vh)
				vegSched.Merge(vs)
				vegErr += e
			}
			row := func(name string, h *hdrhistogram.Histogram, errs int) {
				fmt.Fprintf(&out, "  %-46s %8d %7d %8.0f %8.0f %8.0f\n", name, h.TotalCount(), errs, us(h, 50), us(h, 99), us(h, 99.9))
			}
			row(fmt.Sprintf("throttlebench latency --target, %d/s", rate), ours, oursErr)
			fmt.Fprintf(&out, "  %-46s %8s %7s %8s %8s\n", "  its floor_ms, each round", "", "", fmtList(floorP50), fmtList(floorP99))
			row(fmt.Sprintf("vegeta (defaults), %d/s, from its send", rate), veg, vegErr)
			row("  vegeta from its schedule, as ours", vegSched, vegErr)
			k := fmt.Sprintf("%dk", rate/1000)
			b.ReportMetric(us(ours, 50), "cli-"+k+"-p50-µs")
			b.ReportMetric(us(ours, 99), "cli-"+k+"-p99-µs")
			b.ReportMetric(us(veg, 50), "vegeta-"+k+"-p50-µs")
			b.ReportMetric(us(veg, 99), "vegeta-"+k+"-p99-µs")
		}
	}
	b.ReportMetric(0, "ns/op")
	fmt.Print(out.String())
}

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(time.Hour), 3) }

func fmtList(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(s, "/")
}

// vegetaRun attacks url at rate for d: response times from its send, and
// from its constant pacer's schedule (hit n due (n+1)/rate after the
// start), as internal/httpload's benchmark reads them.
func vegetaRun(url string, rate int, d time.Duration) (h, sched *hdrhistogram.Histogram, errs int) {
	atk := vegeta.NewAttacker(vegeta.KeepAlive(true), vegeta.Timeout(5*time.Second))
	tgt := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: url})
	h, sched = newHist(), newHist()
	begin := time.Now()
	for r := range atk.Attack(tgt, vegeta.ConstantPacer{Freq: rate, Per: time.Second}, d, "") {
		if r.Error != "" || r.Code != http.StatusOK {
			errs++
			continue
		}
		_ = h.RecordValue(int64(r.Latency))
		due := begin.Add(time.Duration(float64(r.Seq+1) / float64(rate) * 1e9))
		_ = sched.RecordValue(max(int64(r.Timestamp.Add(r.Latency).Sub(due)), 1))
	}
	return h, sched, errs
}

// startNullServer builds and starts a Go server that answers 200 with no
// body, in a process of its own, until the benchmark ends.
func startNullServer(b *testing.B) string {
	gobin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("go is not on PATH: the null server cannot be built")
	}
	dir := b.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(`package main

import (
	"net/http"
	"os"
)

func main() {
	http.ListenAndServe(os.Args[1], http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
}
`), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "nullserver")
	build := exec.Command(gobin, "build", "-o", bin, src)
	build.Dir, build.Env = dir, append(os.Environ(), "GO111MODULE=off", "CGO_ENABLED=0")
	if o, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, o)
	}
	addr := "127.0.0.1:" + freePort(b)
	srv := exec.Command(bin, addr)
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr + "/"
}
