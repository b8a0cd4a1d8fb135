//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// instancesResult is the part of a result on instances the tests look at.
type instancesResult struct {
	Config struct {
		Instances   string `json:"instances"`
		Concurrency int    `json:"concurrency"`
		Count       int    `json:"count"`
	} `json:"config"`
	Cgroup struct {
		Version int    `json:"version"`
		Dir     string `json:"dir"`
		QuotaUs int64  `json:"quota_us"`
	} `json:"cgroup"`
	Offered          int      `json:"offered"`
	Completed        int      `json:"completed"`
	CPUMs            *float64 `json:"cpu_ms"`
	InstancesStarted int      `json:"instances_started"`
	ColdStarts       int      `json:"cold_starts"`
	Failed           int      `json:"failed"`
	PeakInstances    int      `json:"peak_instances"`
	PeakRSSBytes     int64    `json:"peak_rss_bytes"`
	Bill             struct {
		RequestMs    float64 `json:"request_ms"`
		RequestGBs   float64 `json:"request_gb_s"`
		InstanceMs   float64 `json:"instance_ms"`
		InstanceCPUs float64 `json:"instance_cpu_s"`
	} `json:"bill"`
	Throttling struct {
		NrPeriods *uint64 `json:"nr_periods"`
	} `json:"throttling"`
	Requests []struct {
		Instance       int      `json:"instance"`
		Cold           bool     `json:"cold"`
		WaitInstanceMs *float64 `json:"wait_instance_ms"`
		QueueMs        *float64 `json:"queue_ms"`
		ServiceMs      *float64 `json:"service_ms"`
		ResponseMs     *float64 `json:"response_ms"`
		Error          string   `json:"error"`
	} `json:"requests"`
	PerInstance []struct {
		ColdStartMs *float64 `json:"cold_start_ms"`
		Served      int      `json:"served"`
		PeakRSS     int64    `json:"peak_rss_bytes"`
		Failed      string   `json:"failed"`
	} `json:"per_instance"`
	Warnings warnings `json:"warnings"`
}

// sliceWatch records every slice that appears under parent while a run
// goes on, and whether a process was seen in it.
type sliceWatch struct {
	mu       sync.Mutex
	seen     map[string]bool // slice → a process was seen in it
	stop     chan struct{}
	finished chan struct{}
}

func watchSlices(t *testing.T, parent string) *sliceWatch {
	w := &sliceWatch{seen: map[string]bool{}, stop: make(chan struct{}), finished: make(chan struct{})}
	go func() {
		defer close(w.finished)
		for {
			for _, d := range subdirs(t, parent) {
				occupied := len(procsIn(d)) > 0
				w.mu.Lock()
				w.seen[d] = w.seen[d] || occupied
				w.mu.Unlock()
			}
			select {
			case <-w.stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return w
}

// occupied are the slices seen so far that held a process.
func (w *sliceWatch) occupied() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, o := range w.seen {
		if o {
			n++
		}
	}
	return n
}

// snapshot is a copy of the slices seen so far.
func (w *sliceWatch) snapshot() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.seen)
}

func (w *sliceWatch) done() map[string]bool {
	close(w.stop)
	<-w.finished
	return w.seen
}

// slicesOf lists the slices a run of pid made anywhere it could have: under
// parent, under the default parent and at the top of the hierarchy (a
// slice is named tb-<pid>-…).
func slicesOf(hier cgroup.Hierarchy, parent string, pid int) []string {
	var out []string
	for _, dir := range []string{parent, hier.DefaultParent(), hier.MountPoint} {
		m, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("tb-%d-*", pid)))
		out = append(out, m...)
	}
	return out
}

// The seed experiment in small, as one list: ten requests at once,
// per-request then shared. Per-request starts ten instances, each in a
// slice of its own, ten cold starts; shared one. Every slice is gone at
// the end, and so is every instance.
func TestInstancesPerRequestAndShared(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	dir := t.TempDir()
	out := filepath.Join(dir, "instances.json")
	tag := newTag(t)
	watch := watchSlices(t, parent)
	cmd, stderr := startTagged(t, tag, "latency", "--cgroup", "create", "--parent", parent, "--cpus", "1",
		"--instances", "per-request,shared", "--concurrency", "10", "--arrivals", "once", "--count", "10",
		"--work", "20ms", "--wait", "500ms", "--init", "20ms", "--init-memory", "8MiB", "-o", out)
	code := exitCode(t, cmd)
	seen := watch.done()
	require.Equal(t, 0, code, stderr.String())
	assertNothingLeft(t, parent, tag, dir, "instances.json")
	assert.Empty(t, slicesOf(hier, parent, cmd.Process.Pid), "no slice of this run anywhere")

	// 10 + 1 slices, and each configuration's floor instance's before
	// them, each with its instance in it at some moment.
	assert.Len(t, seen, 13, "slices seen under %s: %v", parent, seen)
	occupied := 0
	for _, o := range seen {
		if o {
			occupied++
		}
	}
	// The watcher polls every 10 ms; the ten per-request instances live
	// 520 ms or more each, so they are seen however busy the machine: the
	// floor instances and the shared one may come and go between polls.
	assert.GreaterOrEqual(t, occupied, 10, "an instance seen in every per-request slice")

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var rs []instancesResult
	require.NoError(t, json.Unmarshal(data, &rs), "%s", data)
	require.Len(t, rs, 2)
	per, shared := rs[0], rs[1]
	t.Logf("per-request: %d instances, peak RSS %.1f MiB, %s ms CPU, bill %+v", per.InstancesStarted, float64(per.PeakRSSBytes)/(1<<20), fmtPtr(per.CPUMs, "%.0f"), per.Bill)
	t.Logf("shared:      %d instances, peak RSS %.1f MiB, %s ms CPU, bill %+v", shared.InstancesStarted, float64(shared.PeakRSSBytes)/(1<<20), fmtPtr(shared.CPUMs, "%.0f"), shared.Bill)

	assert.Equal(t, "per-request", per.Config.Instances)
	assert.Equal(t, 1, per.Config.Concurrency)
	assert.Equal(t, 10, per.InstancesStarted)
	assert.Equal(t, 10, per.ColdStarts)
	assert.Equal(t, 10, per.PeakInstances)
	assert.Equal(t, 10, per.Completed)
	assert.Zero(t, per.Failed)
	instances := map[int]bool{}
	for i, q := range per.Requests {
		instances[q.Instance] = true
		assert.True(t, q.Cold, "request %d", i)
		if assert.NotNil(t, q.ServiceMs, "request %d: %s", i, q.Error) {
			assert.GreaterOrEqual(t, *q.ServiceMs, 520.0, "request %d: 20 ms of work and 500 ms of wait", i)
			assert.GreaterOrEqual(t, *q.ResponseMs, *q.WaitInstanceMs+*q.QueueMs+*q.ServiceMs-0.001, "request %d", i)
		}
	}
	assert.Len(t, instances, 10, "one instance each")

	assert.Equal(t, "shared", shared.Config.Instances)
	assert.Equal(t, 10, shared.Config.Concurrency)
	assert.Equal(t, 1, shared.InstancesStarted)
	assert.Equal(t, 1, shared.ColdStarts)
	assert.Equal(t, 1, shared.PeakInstances)
	assert.Equal(t, 10, shared.Completed)
	require.Len(t, shared.PerInstance, 1)
	assert.Equal(t, 10, shared.PerInstance[0].Served)
	for i, q := range shared.Requests {
		assert.True(t, q.Cold, "shared request %d waited for the one cold start", i)
	}

	for i, r := range rs {
		assert.Equal(t, hier.Version, r.Cgroup.Version, "config %d", i)
		assert.Equal(t, parent, filepath.Dir(r.Cgroup.Dir), "config %d", i)
		assert.Equal(t, int64(100000), r.Cgroup.QuotaUs, "config %d: each instance has the full --cpus 1", i)
		assert.NotNil(t, r.Throttling.NrPeriods, "config %d", i)
		assert.GreaterOrEqual(t, r.PeakRSSBytes, int64(8<<20), "config %d: at least the memory its cold start touched", i)
	}
	// Ten processes hold about ten times the memory of one, and live ten
	// times as long between them.
	assert.Greater(t, per.PeakRSSBytes, 3*shared.PeakRSSBytes)
	assert.Greater(t, per.Bill.InstanceCPUs, 4*shared.Bill.InstanceCPUs)
}

// Keep-alive: with 0 every instance retires (its slice removed) as soon
// as it has replied, so each of the steady arrivals starts a new one; with
// the default, warm instances serve most of them (one here; a few where a
// cold start takes longer than the gap between arrivals, as in the VM).
func TestInstancesKeepAlive(t *testing.T) {
	hier := needRoot(t)
	for _, keepAlive := range []string{"0s", "10m"} {
		t.Run("keep-alive="+keepAlive, func(t *testing.T) {
			parent := testParent(t, hier)
			dir := t.TempDir()
			tag := newTag(t)
			watch := watchSlices(t, parent)
			o := runCmd(t, taggedCmd(tag, "latency", "--cgroup", "create", "--parent", parent, "--cpus", "0.5",
				"--instances", "per-request", "--arrivals", "fixed", "--rate", "5", "--duration", "1.6s",
				"--work", "1ms", "--keep-alive", keepAlive, "-o", filepath.Join(dir, "r.json")))
			seen := watch.done()
			require.Equal(t, 0, o.code, o.stderr)
			assertNothingLeft(t, parent, tag, dir, "r.json")
			data, err := os.ReadFile(filepath.Join(dir, "r.json"))
			require.NoError(t, err)
			var r instancesResult
			require.NoError(t, json.Unmarshal(data, &r))
			t.Logf("keep-alive %s: %d requests, %d instances, %d cold starts, at most %d at once", keepAlive, r.Completed, r.InstancesStarted, r.ColdStarts, r.PeakInstances)
			assert.Equal(t, 8, r.Completed)
			assert.Len(t, seen, r.InstancesStarted+1, "a slice per instance, and the floor's")
			if keepAlive == "0s" {
				assert.Equal(t, 8, r.InstancesStarted, "none is ever reused")
				assert.Equal(t, 8, r.ColdStarts)
				return
			}
			assert.LessOrEqual(t, r.InstancesStarted, 4, "warm instances reused")
			assert.Equal(t, r.InstancesStarted, r.ColdStarts)
		})
	}
}

// Ctrl-C, SIGTERM and --timeout with instances alive and serving: exit
// 130, 143 or 1, no slice, no instance, no output. Each request is 300ms
// of CPU work, then a 10s wait: the signal goes once every instance has
// spent 200ms of CPU (processCPU), more than its start could (the test
// logs what each had when first seen), so each is serving its request.
func TestInstancesSignalsLeaveNothingBehind(t *testing.T) {
	hier := needRoot(t)
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{{"SIGINT", syscall.SIGINT, 130}, {"SIGTERM", syscall.SIGTERM, 143}, {"timeout", 0, 1}} {
		t.Run(c.name, func(t *testing.T) {
			parent := testParent(t, hier)
			dir := t.TempDir()
			tag := newTag(t)
			args := []string{"latency", "--cgroup", "create", "--parent", parent, "--cpus", "0.5",
				"--instances", "per-request", "--arrivals", "once", "--count", "4", "--work", "300ms", "--wait", "10s",
				"--init-memory", "4MiB", "-o", filepath.Join(dir, "r.json")}
			if c.sig == 0 {
				args = append(args, "--timeout", "4s")
			}
			watch := watchSlices(t, parent)
			began := time.Now()
			cmd, stderr := startTagged(t, tag, args...)
			// The floor's instance first (gone before the run's start),
			// then the run's four.
			for deadline := time.Now().Add(20 * time.Second); watch.occupied() < 5; time.Sleep(10 * time.Millisecond) {
				require.True(t, time.Now().Before(deadline) && alive(cmd.Process.Pid), "four instances never sat in their slices: %s", stderr)
			}
			// One VM boot, on a host busy with other guests, counted three
			// instances of four by their tag at this moment (cause not
			// found): the count is waited for too, a second at most, so a
			// passing moment passes and an instance that died still fails.
			alive := taggedPids(tag)
			for deadline := time.Now().Add(time.Second); len(alive) < 5 && time.Now().Before(deadline); alive = taggedPids(tag) {
				time.Sleep(10 * time.Millisecond)
			}
			if !assert.Len(t, alive, 5, "the dispatcher and four instances") {
				for d := range watch.snapshot() {
					t.Logf("%s holds %v", d, procsIn(d))
				}
				t.Logf("after %v: %s", time.Since(began), stderr)
			}
			if c.sig != 0 {
				serving(t, cmd.Process.Pid, alive, 200*time.Millisecond, stderr)
				require.NoError(t, cmd.Process.Signal(c.sig))
			}
			assert.Equal(t, c.code, exitCode(t, cmd), stderr.String())
			watch.done()
			if c.sig != 0 {
				assert.Contains(t, stderr.String(), "throttlebench: interrupted by "+c.name+"; nothing left behind\n")
			} else {
				assert.Contains(t, stderr.String(), "exceeded --timeout 4s")
			}
			assertNothingLeft(t, parent, tag, dir)
			assert.Empty(t, slicesOf(hier, parent, cmd.Process.Pid))
		})
	}
}

// An instance killed while it serves: its request fails with the reason,
// the others are served, and its slice goes like every other. Serving is
// 200ms of CPU work, then a 2s wait: the victim is killed once it has
// spent more CPU than its start could (processCPU), so in its work or its
// wait.
func TestInstancesCrashedInstance(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	tag := newTag(t)
	watch := watchSlices(t, parent)
	cmd, stderr := startTagged(t, tag, "latency", "--cgroup", "create", "--parent", parent, "--cpus", "0.5",
		"--instances", "per-request", "--arrivals", "once", "--count", "3", "--work", "200ms", "--wait", "2s", "-o", out)
	deadline := time.Now().Add(20 * time.Second)
	for watch.occupied() < 3 {
		require.True(t, time.Now().Before(deadline), "three instances never sat in their slices: %s", stderr)
		time.Sleep(10 * time.Millisecond)
	}
	seen := watch.done() // once: a second call would close a closed channel
	var victim int
	for victim == 0 {
		require.True(t, time.Now().Before(deadline), "no instance found in its slice: %s", stderr)
		for d := range seen {
			if pids := procsIn(d); len(pids) > 0 {
				victim = pids[0]
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A Go process starts on a few ms of CPU (--init is 0s): past 100ms
	// it is serving its request.
	for {
		cpu, err := processCPU(victim)
		if err != nil {
			t.Fatalf("instance %d ended before it was seen serving its request (%v): %s", victim, err, stderr)
		}
		if cpu >= 100*time.Millisecond {
			t.Logf("killing instance %d after %v of CPU", victim, cpu)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 20s for instance %d to serve its request: it used %v of CPU, its 200ms of work never started: %s", victim, cpu, stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, syscall.Kill(victim, syscall.SIGKILL))
	assert.Equal(t, 0, exitCode(t, cmd), stderr.String())
	assertNothingLeft(t, parent, tag, dir, "r.json")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var r instancesResult
	require.NoError(t, json.Unmarshal(data, &r))
	assert.Equal(t, 1, r.Failed)
	assert.Equal(t, 2, r.Completed)
	assert.Equal(t, 3, r.InstancesStarted)
	var reasons []string
	for _, q := range r.Requests {
		if q.Error != "" {
			reasons = append(reasons, q.Error)
		}
	}
	require.Len(t, reasons, 1)
	assert.Contains(t, reasons[0], "signal: killed")
	assert.True(t, strings.HasPrefix(r.Warnings.text(), "few requests") && bytes.Contains(data, []byte("failed requests: 1 of 3")), "%q", r.Warnings)
}

// serving waits (20s at most) until every process in pids but the
// dispatcher has used at least cpu of CPU time: serving its request.
func serving(t *testing.T, dispatcher int, pids []int, cpu time.Duration, stderr fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range pids {
		if pid == dispatcher {
			continue
		}
		for {
			used, err := processCPU(pid)
			require.NoError(t, err, "instance %d ended before it was seen serving its request: %s", pid, stderr)
			if used >= cpu {
				break
			}
			require.True(t, time.Now().Before(deadline), "waited 20s for instance %d to serve its request: it used %v of CPU: %s", pid, used, stderr)
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// processCPU is the CPU time pid's threads have used, user and system
// (/proc/<pid>/stat, in clock ticks of 10ms); an error once it has ended.
func processCPU(pid int) (time.Duration, error) {
	if !alive(pid) {
		return 0, fmt.Errorf("process %d has ended", pid)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	var ticks int64
	for _, v := range f[11:13] { // utime, stime: fields 14 and 15
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// Bad input to the instances exits 2 with one line naming the flag, and
// creates nothing (testParent fails the test if a slice appears).
func TestInstancesInvalidInputCreatesNothing(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--instances", "pool:0"}, "--instances"},
		{[]string{"--instances", "pool:x"}, "--instances"},
		{[]string{"--instances", "shared", "--concurrency", "0"}, "--concurrency"},
		{[]string{"--instances", "per-request", "--concurrency", "4"}, "--concurrency"},
		{[]string{"--instances", "shared", "--workers", "2"}, "--workers"},
		{[]string{"--count", "10"}, "--count"},
		{[]string{"--instances", "shared", "--cgroup", "current"}, "--cgroup current"},
	} {
		o := tb(t, append([]string{"latency", "--parent", parent}, c.args...)...)
		assert.Equal(t, 2, o.code, "%v: %s", c.args, o.stderr)
		assert.Equal(t, 1, strings.Count(o.stderr, "\n"), "%v: one line: %q", c.args, o.stderr)
		assert.Contains(t, o.stderr, c.flag)
		assert.Empty(t, o.stdout)
	}
}

// Without the rights to create slices, instances fail clearly (never in
// the current cgroup), leaving nothing.
func TestInstancesWithoutPrivilege(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	cmd := exec.Command(binaryFor(t, 65534), "latency", "--parent", parent, "--instances", "shared", "--arrivals", "once", "--count", "2", "--format", "json")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	o := runCmd(t, cmd)
	assert.Equal(t, 1, o.code, o.stderr)
	assert.Contains(t, o.stderr, "cannot create a cgroup slice")
	assert.Contains(t, o.stderr, "delegated")
	assert.Empty(t, o.stdout)
}
