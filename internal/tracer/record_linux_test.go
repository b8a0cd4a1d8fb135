//go:build linux

package tracer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// recordEnv names where TestRecordStreams writes its recordings: a
// directory (internal/throttle/testdata/records to refresh those), or "-"
// for standard output, one line per recording after "tb-record: " (how
// the VM's guest hands them back on its console). Unset, the test skips.
const recordEnv = "TB_TRACER_RECORD"

// recording is one traced window's raw records, as the kernel wrote them,
// with the kernel's own counter over the window: internal/throttle's
// TestRecordedStreams reads it back (its copy of this layout).
type recording struct {
	Made      string     `json:"made"`
	Kernel    string     `json:"kernel"`
	TaskBased bool       `json:"task_based"`
	SelfClock bool       `json:"self_clock"`
	T0        int64      `json:"t0_ns"`
	T1        int64      `json:"t1_ns"`
	CounterNs int64      `json:"counter_ns"`
	StopNs    int64      `json:"stop_ns"`
	StillHeld []int32    `json:"still_held"`
	Records   [][9]int64 `json:"records"` // kind, cpu, on_cpu, tid, time, group, clock, self_clock, self_time
}

// TestRecordStreams records the raw records of a few loads on this kernel
// (see recordEnv): a lone spinner; a spinner and three nappers on one CPU
// (held together); three limited siblings under a traced parent; a
// spinner beside busy loops on every CPU.
func TestRecordStreams(t *testing.T) {
	dir := os.Getenv(recordEnv)
	if dir == "" {
		t.Skip(recordEnv + " is not set: nothing to record")
	}
	var uts unix.Utsname
	require.NoError(t, unix.Uname(&uts))
	kernel := unix.ByteSliceToString(uts.Release[:])
	short := strings.SplitN(kernel, ".", 3)
	prefix := short[0] + "." + short[1]
	for _, c := range []struct {
		name string
		d    time.Duration
		load func(t *testing.T) (dir string, counted func(testing.TB) time.Duration)
	}{
		{"spinner", 1 * time.Second, func(t *testing.T) (string, func(testing.TB) time.Duration) {
			cg := newThrottledCgroup(t)
			startSpinner(t, cg.dir)
			return cg.dir, cg.throttled
		}},
		{"held-together", 1 * time.Second, func(t *testing.T) (string, func(testing.TB) time.Duration) {
			cg := newThrottledCgroup(t)
			startPinnedSpinner(t, 0, cg.dir)
			for range 3 {
				startNapper(t, cg.dir, 0)
			}
			return cg.dir, cg.throttled
		}},
		{"siblings", 1 * time.Second, func(t *testing.T) (string, func(testing.TB) time.Duration) {
			parent := newCgroup(t, false)
			var kids []throttledCgroup
			for i := range 3 {
				kid := parent.limitedChild(t, fmt.Sprintf("kid%d", i))
				kids = append(kids, kid)
				startSpinner(t, kid.dir)
			}
			return parent.dir, func(t testing.TB) (d time.Duration) {
				for _, k := range kids {
					d += k.throttled(t)
				}
				return d
			}
		}},
		{"busy", 1 * time.Second, func(t *testing.T) (string, func(testing.TB) time.Duration) {
			cg := newThrottledCgroup(t)
			startSpinner(t, cg.dir)
			for cpu := range runtime.NumCPU() {
				startPinnedSpinner(t, cpu, "")
			}
			return cg.dir, cg.throttled
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			where, counted := c.load(t)
			id, err := CgroupID(where)
			require.NoError(t, err)
			var mu sync.Mutex
			rec := recording{Kernel: kernel, TaskBased: ExactStarts(), SelfClock: ExactEnds(),
				Made: fmt.Sprintf("TestRecordStreams/%s (%s=DIR go test -run TestRecordStreams ./internal/tracer) on %s", c.name, recordEnv, kernel)}
			tr, err := attachNew(func(throttle.Event) {}, nil, attachOrder, func(r throttle.Record) {
				mu.Lock()
				rec.Records = append(rec.Records, [9]int64{int64(r.Kind), int64(r.CPU), int64(r.OnCPU), int64(r.TID), r.Time,
					int64(r.Group), int64(r.Clock), int64(r.SelfClock), int64(r.SelfTime)})
				mu.Unlock()
			})
			require.NoError(t, err)
			require.NoError(t, tr.Track(id))
			var delta time.Duration
			rec.T0, rec.T1, delta = counterOver(t, c.d, counted)
			rec.CounterNs = int64(delta)
			_, err = tr.Stop()
			require.NoError(t, err)
			rec.StopNs, rec.StillHeld = tr.stoppedAt, tr.stillHeld
			b, err := json.Marshal(rec)
			require.NoError(t, err)
			if dir == "-" {
				fmt.Printf("tb-record: %s %s\n", prefix+"-"+c.name, b)
				return
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, prefix+"-"+c.name+".json"), append(b, '\n'), 0o644))
		})
	}
}
