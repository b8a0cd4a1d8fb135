//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/topology"
)

// The soak: every way a run can end, many times over, each at a random
// moment, and after every trial a count of what it left behind. The tests in
// cleanup_test.go show each path works once; a signal that lands between two
// steps (before the slice exists, in the warm-up, in the measured
// iterations, during tear-down and the output write) only shows up over
// many trials.
//
// TB_SOAK_TRIALS sets the trials per kind: 3 by default, the short form
// that every `make test` runs; `make soak` runs 20. TB_SOAK_SEED replays the
// random moments of an earlier soak (each soak logs its seed): the same
// delays and CPU times are aimed at, though the machine's timing varies, so
// a replay need not hit the same instructions.

// soakTagVar marks every process a trial starts. The workload child
// inherits the environment, so a scan of /proc finds both the parent and
// the child, even after the child has been orphaned.
const soakTagVar = "TB_SOAK_TRIAL"

// The short run: 3 warm-up and 3 measured iterations of about 10 ms of CPU
// each at half a CPU with a 10 ms period, about 20 ms apiece, so that a
// random moment can land in every phase. The long run is the same with
// iterations that never end in a trial's lifetime. The batch that makes an
// iteration 10 ms of CPU is measured: 10 hashes on a host, fewer in the VM,
// whose emulated CPU is several times slower.
const soakWarmup, soakIters, soakLong = 3, 3, 100000

func (s *soak) run(iterations int) []string {
	return []string{"--cpus", "0.5", "--period", "10ms", "--batch", strconv.Itoa(s.batch),
		"--warmup", strconv.Itoa(soakWarmup), "--iterations", strconv.Itoa(iterations)}
}

// A sweep of three configurations, one iteration of warm-up and two
// measured each.
var sweepShares = []float64{0.3, 0.5, 0.7}

func (s *soak) sweepRun() []string {
	return []string{"--cpus", "0.3,0.5,0.7", "--period", "10ms", "--batch", strconv.Itoa(s.batch), "--warmup", "1", "--iterations", "2"}
}

type soakKind struct {
	id, name string
	trial    func(s *soak, tr *trial)
}

var soakKinds = []soakKind{
	{"normal", "normal end", (*soak).normal},
	{"sigint", "SIGINT at random", func(s *soak, tr *trial) { s.signal(tr, syscall.SIGINT) }},
	{"sigterm", "SIGTERM at random", func(s *soak, tr *trial) { s.signal(tr, syscall.SIGTERM) }},
	{"kill-child", "SIGKILL workload child", (*soak).killChild},
	{"kill-parent", "SIGKILL parent + cleanup", (*soak).killParent},
	{"timeout", "--timeout at random", (*soak).timeout},
	{"parallel", "4 runs in parallel", (*soak).parallel},
	{"sweep-sigint", "sweep + SIGINT mid-config", (*soak).sweepInterrupted},
	{"latency-sigint", "latency + SIGINT at random", (*soak).latencyInterrupted},
	// New kinds go last, so that the kinds before keep their moments and seeds.
	{"cpuset-sigint", "--cpuset --pin + SIGINT at random", (*soak).cpusetSignal},
	{"instances-sigint", "instances + SIGINT at random", (*soak).instancesInterrupted},
	// Traced (--trace): the BPF program is gone on every way out too.
	{"trace-sigint", "--trace + SIGINT at random", func(s *soak, tr *trial) { tr.trace = true; s.signal(tr, syscall.SIGINT) }},
	{"trace-kill-child", "--trace + SIGKILL workload child", func(s *soak, tr *trial) { tr.trace = true; s.killChild(tr) }},
	{"trace-timeout", "--trace + --timeout at random", func(s *soak, tr *trial) { tr.trace = true; s.timeout(tr) }},
	{"trace-latency", "latency --trace + SIGINT at random", func(s *soak, tr *trial) { tr.trace = true; s.latencyInterrupted(tr) }},
	{"serve-kill", "latency --serve + SIGKILL + cleanup", (*soak).serveKilled},
}

// soak holds what all trials share: the hierarchy, the seed, and timings
// measured on this machine (the VM runs several times slower than a host).
//
// Moments inside a run are aimed at by the workload child's CPU time, not
// by the clock: on a shared machine the wall time of an iteration varies
// severalfold with the load, its CPU time hardly at all.
type soak struct {
	hier    cgroup.Hierarchy
	seed    uint64
	trials  int
	batch   int           // hashes per iteration: about 10 ms of CPU
	startup time.Duration // wall time from exec until the workload child sits in its slice
	iter    time.Duration // wall time of one iteration of the short run
	offset  time.Duration // CPU time the child uses before its first iteration
	cpuIter time.Duration // CPU time of one iteration

	// The instances run's wall time, timed by its first trial.
	instWall time.Duration

	// The latency run's, timed by the first latency trial
	// (calibrateLatency): the wall time its child's calibration of the
	// work loop takes (its first request comes about then after the child
	// appears in its slice), and from that appearance until the run exits.
	latCalib, latWall time.Duration
}

// kindTally is one row of the table.
type kindTally struct {
	name              string
	n, failures, left int
	outcomes, moments map[string]int
	elapsed           time.Duration
}

func TestSoak(t *testing.T) {
	hier := needRoot(t)
	s := &soak{hier: hier, trials: 3, seed: uint64(time.Now().UnixNano())}
	if v := os.Getenv("TB_SOAK_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "TB_SOAK_TRIALS")
		require.Positive(t, n, "TB_SOAK_TRIALS")
		s.trials = n
	}
	if v := os.Getenv("TB_SOAK_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "TB_SOAK_SEED")
		s.seed = seed
	}
	t.Logf("soak: %d trials per kind, TB_SOAK_SEED=%d, cgroup v%d at %s", s.trials, s.seed, hier.Version, hier.MountPoint)
	s.calibrate(t)

	began := time.Now()
	var tallies []*kindTally
	for ki, k := range soakKinds {
		tally := &kindTally{name: k.name, outcomes: map[string]int{}, moments: map[string]int{}}
		t.Run(k.id, func(t *testing.T) {
			started := time.Now()
			// One generator per kind, so that a kind run alone (-run
			// TestSoak/sigint) replays the same moments.
			rng := rand.New(rand.NewPCG(s.seed, uint64(ki)))
			for i := range s.trials {
				func() {
					tr := s.newTrial(t, k.id, ki, i, rng)
					defer tr.finish(tally) // also when a trial stops the test
					k.trial(s, tr)
				}()
			}
			tally.elapsed = time.Since(started)
		})
		if tally.n > 0 {
			tallies = append(tallies, tally)
		}
	}
	// Printed once: as the result under -v (make soak, the VM), as the
	// test's log otherwise (make test-host shows it when the soak fails).
	table := soakTable(s, tallies, time.Since(began))
	if testing.Verbose() {
		fmt.Print(table)
	} else {
		t.Log("\n" + table)
	}
}

// calibrate chooses the batch, then times three short runs: when the child
// appears in its slice, the CPU time it has used by then, and the wall and
// CPU time of one iteration. The random moments are drawn from these.
func (s *soak) calibrate(t *testing.T) {
	parent := testParent(t, s.hier)
	s.batch = 10
	_, _, _, cpu := s.calibrationRun(t, parent)
	s.batch = min(max(int(float64(10*time.Millisecond)/float64(cpu/10)+0.5), 1), 10)
	var startups, iters, offsets, cpus []time.Duration
	for range 3 {
		startup, offset, iter, cpu := s.calibrationRun(t, parent)
		startups, offsets, iters, cpus = append(startups, startup), append(offsets, offset), append(iters, iter), append(cpus, cpu)
	}
	s.startup, s.iter, s.offset, s.cpuIter = median(startups), median(iters), slices.Min(offsets), median(cpus)
	t.Logf("soak: calibrated: --batch %d; the child sits in its slice %v after exec, having used %v of CPU; an iteration takes %v (%v of CPU)",
		s.batch, s.startup.Round(100*time.Microsecond), s.offset.Round(100*time.Microsecond), s.iter.Round(100*time.Microsecond), s.cpuIter.Round(100*time.Microsecond))
}

func (s *soak) calibrationRun(t *testing.T, parent string) (startup, offset, iter, cpu time.Duration) {
	cmd := exec.Command(binary, jsonByDefault(append([]string{"run", "--cgroup", "create", "--parent", parent}, s.run(soakIters)...))...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	child := 0
	for deadline := time.Now().Add(time.Minute); child == 0; time.Sleep(200 * time.Microsecond) {
		require.True(t, time.Now().Before(deadline), "no workload child appeared under %s", parent)
		for _, d := range subdirs(t, parent) {
			if pids := procsIn(d); len(pids) > 0 {
				child = pids[0]
			}
		}
	}
	startup = time.Since(start)
	offset, _ = cpuOf(child)
	require.NoError(t, cmd.Wait(), "calibration run: %s", errb.String())
	var r struct {
		Stats struct {
			N      int
			MeanMs float64 `json:"mean_ms"`
		}
		Workers []struct {
			CPUMs float64 `json:"cpu_ms"`
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &r))
	require.Len(t, r.Workers, 1)
	iter = time.Duration(r.Stats.MeanMs * float64(time.Millisecond))
	cpu = time.Duration(r.Workers[0].CPUMs / float64(r.Stats.N) * float64(time.Millisecond))
	return startup, offset, iter, cpu
}

// cpuOf is the CPU time a process has used so far, all its threads: its
// kernel CPU clock (clock_getcpuclockid), exact where /proc's ticks are not.
func cpuOf(pid int) (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(^pid<<3|2), &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// phase names the part of a run a child with this much CPU time is in.
func (s *soak) phase(used time.Duration, iterations int) string {
	switch {
	case used < s.offset+soakWarmup*s.cpuIter:
		return "warm-up"
	case used < s.offset+time.Duration(soakWarmup+iterations)*s.cpuIter:
		return "measured"
	}
	return "end"
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// between draws a duration uniformly from [lo, hi).
func between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}

// logBetween draws a duration log-uniformly from [lo, hi).
func logBetween(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return time.Duration(float64(lo) * math.Pow(float64(hi)/float64(lo), rng.Float64()))
}

// trial is one run of one kind, in its own parent cgroup and output directory.
type trial struct {
	t         *testing.T
	s         *soak
	kind      string
	i         int
	aimOffset int // where the cycle of aimed moments starts: see aim
	rng       *rand.Rand
	tag       string
	parent    string
	outDir    string
	procs     []*proc
	kept      map[string]bool   // output files that may stay: complete results of successful runs
	rejected  map[string]string // output files found wanting, and why
	// The default parent's directories before the trial: a slice there
	// named after one of its PIDs is a stale one of an earlier process
	// that had the same PID, not the trial's.
	existing map[string]bool
	// twin is the parent's place in v1's own cpuset hierarchy, where a run
	// with --cpuset makes its slice's twin ("" where there is none apart);
	// twinsMade are what the trial made there itself, removed at its end.
	twin      string
	twinsMade []string
	// acct is the parent's twin in a cpuacct hierarchy mounted apart (v1
	// here), made by the trial so that its runs' slices get their cpuacct
	// twins there too, which must go as the slices do; "" where none.
	acct string
	// trace runs the trial's runs with --trace; bpf is the tracer's BPF
	// programs that no process held before it (tracerPrograms), which
	// must be all such that are left after it.
	trace     bool
	bpf       map[ebpf.ProgramID]bool
	moment    string
	outcome   string
	notes     []string
	failures  []string
	leftovers []string
}

func (s *soak) newTrial(t *testing.T, kind string, ki, i int, rng *rand.Rand) *trial {
	t.Helper()
	tr := &trial{t: t, s: s, kind: kind, i: i, aimOffset: ki * s.trials, rng: rng,
		tag:      fmt.Sprintf("%d-%s-%d", os.Getpid(), kind, i),
		parent:   filepath.Join(s.hier.DefaultParent(), fmt.Sprintf("soak-%d-%s-%d", os.Getpid(), kind, i)),
		kept:     map[string]bool{},
		rejected: map[string]string{},
		existing: map[string]bool{},
	}
	for _, d := range subdirs(t, s.hier.DefaultParent()) {
		tr.existing[d] = true
	}
	if cs, err := (cgroup.Host{Root: "/"}).CpusetHierarchy(s.hier); err == nil && s.hier.Separate(cs) {
		tr.twin = s.hier.TwinDir(cs, tr.parent)
		for _, d := range subdirs(t, cs.DefaultParent()) {
			tr.existing[d] = true
		}
	}
	if s.hier.Version == 1 && s.hier.Acct != "" && s.hier.Acct != s.hier.MountPoint {
		acct := cgroup.Hierarchy{Version: 1, MountPoint: s.hier.Acct}
		tr.acct = s.hier.TwinDir(acct, tr.parent)
		for _, d := range subdirs(t, acct.DefaultParent()) {
			tr.existing[d] = true
		}
		require.NoError(t, os.MkdirAll(tr.acct, 0o755))
	}
	tr.bpf = tracerPrograms(t)
	require.NoError(t, os.MkdirAll(tr.parent, 0o755))
	offerCPU(t, s.hier, tr.parent)
	dir, err := os.MkdirTemp("", "tb-soak-")
	if err != nil {
		os.Remove(tr.parent)
	}
	require.NoError(t, err)
	tr.outDir = dir
	return tr
}

func (tr *trial) fail(format string, a ...any) {
	tr.failures = append(tr.failures, fmt.Sprintf(format, a...))
}

func (tr *trial) note(format string, a ...any) {
	tr.notes = append(tr.notes, fmt.Sprintf(format, a...))
}

// out is a fresh output path for one of this trial's runs.
func (tr *trial) out(name string) string { return filepath.Join(tr.outDir, name) }

// proc is one throttlebench process of a trial.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	started        time.Time
	done           chan struct{}
}

// start starts the binary, tagged, and reaps it in the background (the os
// package signals through a pidfd, so signalling a reaped process is safe).
func (tr *trial) start(args ...string) *proc {
	p := &proc{cmd: exec.Command(binary, jsonByDefault(args)...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), soakTagVar+"="+tr.tag)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.started = time.Now()
	require.NoError(tr.t, p.cmd.Start())
	tr.procs = append(tr.procs, p)
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits for the process to end; one that hangs is a failure, and is
// killed so that the trial can go on.
func (tr *trial) wait(p *proc) {
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		tr.fail("pid %d did not exit within 2 minutes; killed", p.cmd.Process.Pid)
		p.cmd.Process.Kill()
		<-p.done
	}
}

// exit describes how a process ended: "exit N" or "killed by SIG…".
func (p *proc) exit() string {
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return "killed by " + signalName(ws.Signal())
	}
	return fmt.Sprintf("exit %d", ws.ExitStatus())
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return s.String()
}

// waitSlice polls the trial's parent until the workload child of the
// (k+1)-th slice (a sweep makes one per configuration) sits in it, and
// returns the child; 0 when the process ended first.
func (tr *trial) waitSlice(p *proc, k int) int {
	seen := map[string]bool{}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
		for _, d := range subdirs(tr.t, tr.parent) {
			if pids := procsIn(d); !seen[d] && len(pids) > 0 {
				seen[d] = true
				if len(seen) > k {
					return pids[0]
				}
			}
		}
		if p.exited() {
			return 0
		}
	}
	tr.fail("no workload child appeared in slice %d within a minute", k+1)
	return 0
}

// waitCPU polls until the child has used target CPU time, or is gone.
func (tr *trial) waitCPU(p *proc, child int, target time.Duration) {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
		if used, ok := cpuOf(child); !ok || used >= target || !alive(child) || p.exited() {
			return
		}
	}
	tr.fail("the child did not reach %v of CPU time within a minute", target)
}

// where says where a run stands, as far as the outside can tell: the
// directory of its slice, the child in it and the child's CPU time. seen
// says whether its child has been in the slice before (an empty slice is
// then being torn down, not set up).
func (tr *trial) where(p *proc, seen bool, iterations int) string {
	if p.exited() {
		return "after exit"
	}
	dirs := subdirs(tr.t, tr.parent)
	var pids []int
	if len(dirs) > 0 {
		pids = procsIn(dirs[0])
	}
	switch {
	case len(pids) > 0:
		if used, ok := cpuOf(pids[0]); ok {
			return tr.s.phase(used, iterations)
		}
		return "end"
	case seen:
		return "tear-down/output"
	case len(dirs) == 0:
		return "before slice"
	}
	return "slice set-up"
}

// aim picks the i-th moment of a cycle. The cycle goes on from one kind to
// the next, so that the short form (SIGINT and SIGTERM, 3 trials each)
// still covers all five moments of a run.
func (tr *trial) aim(moments ...string) string {
	return moments[(tr.i+tr.aimOffset)%len(moments)]
}

// inject waits for a random moment of the aimed part of the run (one of
// iterations measured ones), calls fault there, and records where the run
// really stood. Before the slice exists, the moment is a wall time after
// exec, or the slice's appearance if that comes first; in the warm-up, the
// measured iterations and at their end, a CPU time of the child; for the
// output, a wall time after the slice is gone.
func (tr *trial) inject(p *proc, aimed string, iterations int, fault func()) {
	s := tr.s
	seen := false
	switch aimed {
	case "before slice":
		delay := between(tr.rng, 0, s.startup)
		for time.Since(p.started) < delay && len(subdirs(tr.t, tr.parent)) == 0 && !p.exited() {
			time.Sleep(100 * time.Microsecond)
		}
		tr.note("%v after exec (aimed at %v)", time.Since(p.started).Round(100*time.Microsecond), delay.Round(100*time.Microsecond))
	case "output":
		// Too short to aim at by CPU time or the clock: wait until the
		// slice has gone, then the output is being written.
		if seen = tr.waitSlice(p, 0) != 0; seen {
			for deadline := time.Now().Add(time.Minute); len(subdirs(tr.t, tr.parent)) > 0 && !p.exited() && time.Now().Before(deadline); {
				time.Sleep(100 * time.Microsecond)
			}
		}
		delay := between(tr.rng, 0, time.Millisecond)
		time.Sleep(delay)
		tr.note("%v after its slice was removed", delay.Round(10*time.Microsecond))
	default:
		// Within the first iterations of a long run, which has no end.
		warm, end := s.offset+soakWarmup*s.cpuIter, s.offset+time.Duration(soakWarmup+min(iterations, soakIters))*s.cpuIter
		var target time.Duration
		switch aimed {
		case "warm-up":
			target = between(tr.rng, s.offset, warm)
		case "measured":
			target = between(tr.rng, warm, end)
		case "end":
			// The last half iteration, or just after: a target the child
			// never reaches lands as it finishes.
			target = between(tr.rng, end-s.cpuIter/2, end+s.cpuIter/4)
		default:
			panic("unknown moment " + aimed)
		}
		child := tr.waitSlice(p, 0)
		if seen = child != 0; seen {
			tr.waitCPU(p, child, target)
		}
		tr.note("at %v of the child's CPU time", target.Round(100*time.Microsecond))
	}
	tr.moment = tr.where(p, seen, iterations)
	fault()
}

// checkRun accepts the output of a run that exited 0: one complete report.
func (tr *trial) checkRun(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		tr.fail("exit 0 without its output: %v", err)
		return
	}
	var r result
	if err := json.Unmarshal(data, &r); err != nil || r.Stats.N != soakIters {
		tr.rejected[filepath.Base(path)] = fmt.Sprintf("not a complete report (%d bytes)", len(data))
		tr.fail("exit 0 with an incomplete output")
		return
	}
	tr.kept[filepath.Base(path)] = true
}

// runArgs is a run under the trial's parent.
func (tr *trial) runArgs(shape []string, extra ...string) []string {
	args := append([]string{"run", "--cgroup", "create", "--parent", tr.parent}, shape...)
	if tr.trace {
		args = append(args, "--trace")
	}
	return append(args, extra...)
}

func (s *soak) normal(tr *trial) {
	out := tr.out("run.json")
	p := tr.start(tr.runArgs(s.run(soakIters), "-o", out)...)
	tr.wait(p)
	tr.moment, tr.outcome = "", p.exit()
	if tr.outcome != "exit 0" {
		tr.fail("%s: %s", tr.outcome, p.stderr.String())
		return
	}
	tr.checkRun(out)
}

// signal sends SIGINT or SIGTERM to the run at a random moment: the run
// ends with 128+signal and nothing behind. A signal that comes after the
// run's work is done may still see it exit 0; one in the first milliseconds
// after exec, before the handler is installed, kills the process by its
// default action with nothing created yet. The handler stays until the
// process exits, so a run that has done its work is never killed by one.
func (s *soak) signal(tr *trial, sig syscall.Signal, extra ...string) {
	out := tr.out("run.json")
	p := tr.start(tr.runArgs(s.run(soakIters), append([]string{"-o", out}, extra...)...)...)
	tr.inject(p, tr.aim("before slice", "warm-up", "measured", "end", "output"), soakIters, func() { p.cmd.Process.Signal(sig) })
	tr.wait(p)
	tr.outcome = p.exit()
	switch tr.outcome {
	case fmt.Sprintf("exit %d", 128+int(sig)):
		if want := "interrupted by " + signalName(sig) + "; nothing left behind"; !strings.Contains(p.stderr.String(), want) {
			tr.fail("no %q on stderr: %s", want, p.stderr.String())
		}
	case "exit 0":
		tr.checkRun(out)
	case "killed by " + signalName(sig):
		// The handler exists from just after exec until the exit: before
		// it, nothing exists yet.
		if _, err := os.Stat(out); err == nil {
			tr.outcome += " (after its work)"
			tr.fail("killed by the signal after its work: the handler must stay until the process exits")
		} else {
			tr.outcome += " (before its handler)"
			if p.stderr.Len() > 0 {
				tr.fail("killed by the signal in the middle of its work: %s", p.stderr.String())
			}
		}
	default:
		tr.fail("%s: %s", tr.outcome, p.stderr.String())
	}
}

// cpusetSignal is signal's SIGINT to a run with a cpuset and pinned
// workers, under a parent that offers cpusets: the slice's twin in v1's
// cpuset hierarchy must go on every path too.
func (s *soak) cpusetSignal(tr *trial) {
	tr.twinsMade = offerCpuset(tr.t, s.hier, tr.parent)
	cpus, err := topology.Affinity()
	require.NoError(tr.t, err)
	s.signal(tr, syscall.SIGINT, "--cpuset", strconv.Itoa(cpus[0]), "--pin")
}

// killChild SIGKILLs the workload child in its warm-up or measured
// iterations: the run fails (exit 1) saying so.
func (s *soak) killChild(tr *trial) {
	p := tr.start(tr.runArgs(s.run(soakLong), "-o", tr.out("run.json"))...)
	tr.inject(p, tr.aim("warm-up", "measured"), soakLong, func() {
		for _, pid := range tr.livePids() {
			if pid != p.cmd.Process.Pid {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	tr.wait(p)
	tr.outcome = p.exit()
	if tr.outcome != "exit 1" || !strings.Contains(p.stderr.String(), "workload process died") {
		tr.fail("want exit 1 and \"workload process died\": %s: %s", tr.outcome, p.stderr.String())
	}
}

// killParent SIGKILLs the run itself, which can then clean up nothing: its
// child must die by the parent-death signal, and `cleanup` remove the slice.
func (s *soak) killParent(tr *trial) {
	p := tr.start(tr.runArgs(s.run(soakLong), "-o", tr.out("run.json"))...)
	tr.inject(p, tr.aim("before slice", "warm-up", "measured"), soakLong, func() { p.cmd.Process.Kill() })
	tr.wait(p)
	tr.outcome = p.exit()
	if tr.outcome != "killed by SIGKILL" {
		tr.fail("want killed by SIGKILL: %s: %s", tr.outcome, p.stderr.String())
	}
	tr.cleanupAfterKill()
}

// cleanupAfterKill follows a SIGKILLed run: every process of the trial
// must go by itself (the workload child by its parent-death signal, a
// --serve slice's server by the guard; their going is the event, and a
// minute a deadline for a hang), then `cleanup` must remove every slice
// left and say so, or say there is nothing to remove.
func (tr *trial) cleanupAfterKill() {
	deadline := time.Now().Add(time.Minute)
	for len(tr.livePids()) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if pids := tr.livePids(); len(pids) > 0 {
		tr.fail("processes %v outlived their SIGKILLed parent by a minute", pids)
	}
	stale := subdirs(tr.t, tr.parent)
	c := tr.start("cleanup", "--parent", tr.parent)
	tr.wait(c)
	if got := c.exit(); got != "exit 0" {
		tr.fail("cleanup: %s: %s", got, c.stderr.String())
	}
	for _, d := range stale {
		if !strings.Contains(c.stdout.String(), "removed "+d) {
			tr.fail("cleanup did not say it removed %s: %s", d, c.stdout.String())
		}
	}
	if len(stale) == 0 && !strings.Contains(c.stdout.String(), "nothing to remove") {
		tr.fail("cleanup with nothing to remove said: %s", c.stdout.String())
	}
	tr.note("cleanup found %d slice(s)", len(stale))
}

// timeout gives a long run a random short --timeout: one that expires
// while the slice is set up (the clock starts after the process's own
// start-up), in the warm-up or in the measured iterations. The clock of a
// timeout is the wall clock: where the run stood when it expired is
// watched from outside.
func (s *soak) timeout(tr *trial) {
	var d time.Duration
	switch tr.aim("set-up", "warm-up", "measured") {
	case "set-up":
		// Log-uniform: the set-up takes a few hundred µs, and the shortest
		// timeouts are the ones that expire in its first steps.
		d = logBetween(tr.rng, 10*time.Microsecond, 2*time.Millisecond).Round(time.Microsecond)
	case "warm-up":
		d = between(tr.rng, 2*time.Millisecond, soakWarmup*s.iter).Round(time.Millisecond)
	case "measured":
		d = between(tr.rng, soakWarmup*s.iter, (soakWarmup+3)*s.iter).Round(time.Millisecond)
	}
	p := tr.start(tr.runArgs(s.run(soakLong), "-o", tr.out("run.json"), "--timeout", d.String())...)
	// Watched until the end: the furthest place seen is where the timeout hit.
	rank := map[string]int{"before slice": 1, "slice set-up": 2, "warm-up": 3, "measured": 4}
	seen := false
	for !p.exited() {
		if w := tr.where(p, seen, soakLong); rank[w] > rank[tr.moment] {
			tr.moment, seen = w, rank[w] >= rank["warm-up"]
		}
		time.Sleep(200 * time.Microsecond)
	}
	tr.wait(p)
	tr.outcome = p.exit()
	tr.note("--timeout %v", d)
	if want := fmt.Sprintf("exceeded --timeout %v", d); tr.outcome != "exit 1" || !strings.Contains(p.stderr.String(), want) {
		tr.fail("want exit 1 and %q: %s: %s", want, tr.outcome, p.stderr.String())
	}
}

// parallel runs four short runs at once under one parent: each succeeds in
// a slice of its own.
func (s *soak) parallel(tr *trial) {
	var ps []*proc
	for j := range 4 {
		ps = append(ps, tr.start(tr.runArgs(s.run(soakIters), "-o", tr.out(fmt.Sprintf("run-%d.json", j)))...))
	}
	var outcomes []string
	paths := map[string]bool{}
	for j, p := range ps {
		tr.wait(p)
		outcomes = append(outcomes, p.exit())
		if p.exit() != "exit 0" {
			tr.fail("run %d: %s: %s", j, p.exit(), p.stderr.String())
			continue
		}
		out := tr.out(fmt.Sprintf("run-%d.json", j))
		tr.checkRun(out)
		var r result
		if data, err := os.ReadFile(out); err == nil && json.Unmarshal(data, &r) == nil {
			if paths[r.Cgroup.Path] {
				tr.fail("two runs shared slice %s", r.Cgroup.Path)
			}
			paths[r.Cgroup.Path] = true
		}
	}
	tr.outcome = strings.Join(slices.Compact(outcomes), ",")
}

// sweepInterrupted sends SIGINT while the k-th configuration of a sweep
// runs: the configurations finished before stay in --output as complete
// JSON, and nothing else stays.
func (s *soak) sweepInterrupted(tr *trial) {
	out := tr.out("sweep.json")
	args := append([]string{"sweep", "--cgroup", "create", "--parent", tr.parent}, s.sweepRun()...)
	p := tr.start(append(args, "--format", "json", "-o", out)...)
	k := (tr.i + tr.aimOffset) % len(sweepShares)
	tr.moment = fmt.Sprintf("config %d of 3", k+1)
	if child := tr.waitSlice(p, k); child != 0 {
		// Each configuration runs 3 iterations; a target just past them
		// lands as the configuration ends.
		target := between(tr.rng, tr.s.offset, tr.s.offset+3*tr.s.cpuIter+tr.s.cpuIter/4)
		tr.waitCPU(p, child, target)
		tr.note("at %v of the child's CPU time", target.Round(100*time.Microsecond))
		if w := tr.where(p, true, 2); w == "tear-down/output" || w == "after exit" {
			tr.moment += ", " + w
		}
	} else {
		tr.moment = "after exit"
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	tr.wait(p)
	tr.outcome = p.exit()

	rows := -1 // no output file
	if data, err := os.ReadFile(out); err == nil {
		var rs []result
		if err := json.Unmarshal(data, &rs); err != nil {
			tr.rejected["sweep.json"] = fmt.Sprintf("not complete JSON (%d bytes): %v", len(data), err)
			tr.fail("the sweep's output is not complete JSON")
			return
		}
		rows = len(rs)
		for j, r := range rs {
			if j >= len(sweepShares) || math.Abs(r.Cgroup.EffectiveCPUs-sweepShares[j]) > 1e-9 {
				tr.fail("row %d of the output is %.2f CPUs, want the configurations in order", j, r.Cgroup.EffectiveCPUs)
			}
		}
	}
	tr.note("%d row(s) kept", max(rows, 0))
	switch tr.outcome {
	case "exit 130":
		if !strings.Contains(p.stderr.String(), "interrupted by SIGINT; nothing left behind") {
			tr.fail("no interruption message: %s", p.stderr.String())
		}
		// Configurations 1..k had finished and must all be there; later
		// ones may have finished too (the poll may miss a configuration
		// on a busy machine), but not all three. Before the first one
		// finishes there is no output file at all.
		if rows == 0 || max(rows, 0) < k || rows >= len(sweepShares) {
			tr.fail("%d rows in the output after an interrupt in configuration %d", max(rows, 0), k+1)
		}
	case "exit 0":
		if rows != len(sweepShares) {
			tr.fail("exit 0 with %d rows", rows)
		}
	case "killed by SIGINT":
		// The signal comes in a configuration, long after the handler is in
		// place and before the exit, when it is still there.
		tr.fail("killed by SIGINT instead of handling it, %d rows: %s", max(rows, 0), p.stderr.String())
	default:
		tr.fail("%s: %s", tr.outcome, p.stderr.String())
		return
	}
	if rows >= 0 {
		tr.kept["sweep.json"] = true
	}
}

// The latency run: 300 ms of requests of 1 ms of work, 200 per second
// (0.2 CPUs), in half a CPU with a 10 ms period; before them the workload
// child calibrates its work loop (about 25 ms of CPU time).
const soakLatencyDuration = 300 * time.Millisecond

func (s *soak) latencyRun() []string {
	return []string{"--cpus", "0.5", "--period", "10ms", "--rate", "200", "--work", "1ms", "--workers", "2",
		"--duration", soakLatencyDuration.String()}
}

// calibrateLatency times three latency runs from outside: when the child
// appears in its slice, and when the run exits; the report says how long
// the calibration took.
func (s *soak) calibrateLatency(t *testing.T) {
	parent := testParent(t, s.hier)
	var calibs, walls []time.Duration
	for range 3 {
		cmd := exec.Command(binary, jsonByDefault(append([]string{"latency", "--cgroup", "create", "--parent", parent}, s.latencyRun()...))...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		// Polled as closely as waitSlice does.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Microsecond) {
			require.True(t, time.Now().Before(deadline), "no workload child appeared under %s", parent)
			if dirs := subdirs(t, parent); len(dirs) > 0 && len(procsIn(dirs[0])) > 0 {
				break
			}
		}
		appeared := time.Now()
		require.NoError(t, cmd.Wait(), "latency calibration run: %s", errb.String())
		walls = append(walls, time.Since(appeared))
		var r struct {
			Calibration struct {
				Took time.Duration `json:"took_ns"`
			} `json:"calibration"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &r))
		calibs = append(calibs, r.Calibration.Took)
	}
	s.latCalib, s.latWall = median(calibs), median(walls)
	t.Logf("soak: latency calibrated: its child calibrates for %v after it appears in its slice, and the run exits %v after that",
		s.latCalib.Round(100*time.Microsecond), s.latWall.Round(100*time.Microsecond))
}

// latencyWhere says where a latency run stands, as far as the outside can
// tell; seen is when its child was first seen in its slice (zero: not yet).
func (tr *trial) latencyWhere(p *proc, seen time.Time) string {
	if p.exited() {
		return "after exit"
	}
	dirs := subdirs(tr.t, tr.parent)
	switch {
	case len(dirs) > 0 && len(procsIn(dirs[0])) > 0:
		if !seen.IsZero() && time.Since(seen) >= tr.s.latCalib {
			return "requests"
		}
		return "calibration"
	case !seen.IsZero():
		return "tear-down/output"
	case len(dirs) == 0:
		return "before slice"
	}
	return "slice set-up"
}

// latencyInterrupted sends SIGINT to a latency run at a random moment:
// before its slice exists, in the child's calibration, among the requests,
// at their end, while the output is written. As for run, the run ends
// with 130 and nothing behind, or, when the signal comes after its work,
// with 0 and its complete result.
func (s *soak) latencyInterrupted(tr *trial) {
	if s.latWall == 0 {
		s.calibrateLatency(tr.t)
	}
	out := tr.out("latency.json")
	args := append(append([]string{"latency", "--cgroup", "create", "--parent", tr.parent}, s.latencyRun()...), "-o", out)
	if tr.trace {
		args = append(args, "--trace")
	}
	p := tr.start(args...)
	var seen time.Time
	// Its own cycle of moments: the short form's three trials land among
	// the requests, in the calibration and at the end.
	moments := []string{"requests", "calibration", "end", "before slice", "output"}
	switch aimed := moments[tr.i%len(moments)]; aimed {
	case "before slice":
		delay := between(tr.rng, 0, s.startup)
		for time.Since(p.started) < delay && len(subdirs(tr.t, tr.parent)) == 0 && !p.exited() {
			time.Sleep(100 * time.Microsecond)
		}
		tr.note("%v after exec (aimed at %v)", time.Since(p.started).Round(100*time.Microsecond), delay.Round(100*time.Microsecond))
	case "output":
		if tr.waitSlice(p, 0) != 0 {
			seen = time.Now()
			for deadline := time.Now().Add(time.Minute); len(subdirs(tr.t, tr.parent)) > 0 && !p.exited() && time.Now().Before(deadline); {
				time.Sleep(100 * time.Microsecond)
			}
		}
		delay := between(tr.rng, 0, time.Millisecond)
		time.Sleep(delay)
		tr.note("%v after its slice was removed", delay.Round(10*time.Microsecond))
	default:
		// A wall time after the child appeared in its slice: the requests
		// run on the clock, whatever the CPU.
		lo, hi := time.Duration(0), s.latCalib
		switch aimed {
		case "requests":
			lo, hi = s.latCalib, s.latCalib+soakLatencyDuration
		case "end":
			// The last requests, or just after: a moment past the exit
			// lands as it exits.
			lo, hi = s.latCalib+soakLatencyDuration-20*time.Millisecond, max(s.latWall, s.latCalib+soakLatencyDuration)+10*time.Millisecond
		}
		delay := between(tr.rng, lo, hi)
		if tr.waitSlice(p, 0) != 0 {
			seen = time.Now()
			for time.Since(seen) < delay && !p.exited() {
				time.Sleep(100 * time.Microsecond)
			}
		}
		tr.note("%v after the child appeared (aimed at %s)", delay.Round(100*time.Microsecond), aimed)
	}
	tr.moment = tr.latencyWhere(p, seen)
	p.cmd.Process.Signal(syscall.SIGINT)
	tr.wait(p)
	tr.outcome = p.exit()
	switch tr.outcome {
	case "exit 130":
		// Its one configuration did not finish: no output (finish counts one).
		if want := "interrupted by SIGINT; nothing left behind"; !strings.Contains(p.stderr.String(), want) {
			tr.fail("no %q on stderr: %s", want, p.stderr.String())
		}
	case "exit 0":
		tr.checkLatency(out)
	case "killed by SIGINT":
		if _, err := os.Stat(out); err == nil {
			tr.outcome += " (after its work)"
			tr.fail("killed by the signal after its work: the handler must stay until the process exits")
		} else {
			tr.outcome += " (before its handler)"
			if p.stderr.Len() > 0 {
				tr.fail("killed by the signal in the middle of its work: %s", p.stderr.String())
			}
		}
	default:
		tr.fail("%s: %s", tr.outcome, p.stderr.String())
	}
}

// serveKilled SIGKILLs `latency --target URL --serve -- sh -c 'SERVER &
// wait'` at a random moment: before its slice exists, while the server
// starts in it (before it has answered), or while it serves. No handler of
// ours runs; the shell dies by its parent-death signal, and the server it
// forked, out of that signal's reach, must be killed by the slice's guard.
// Then every process of the trial must be gone (the guard's end is the
// event), and `cleanup` must remove the slice. docs/guarantees.md promises
// both, whatever the moment.
func (s *soak) serveKilled(tr *trial) {
	port := freePort(tr.t)
	addr := "127.0.0.1:" + port
	notify := tr.out("served")
	srv := goServer(tr.t, addr, "0s notify="+notify)
	p := tr.start("latency", "--parent", tr.parent, "--target", "http://"+addr+"/", "--rate", "50", "--duration", "60s",
		"-o", tr.out("latency.json"), "--serve", "--", "sh", "-c", shellJoin(srv)+" & wait")
	served := func() bool { _, err := os.Stat(notify); return err == nil }
	switch aimed := tr.aim("before slice", "server start", "serving"); aimed {
	case "before slice":
		delay := between(tr.rng, 0, s.startup)
		for time.Since(p.started) < delay && len(subdirs(tr.t, tr.parent)) == 0 && !p.exited() {
			time.Sleep(100 * time.Microsecond)
		}
		tr.note("%v after exec (aimed at %v)", time.Since(p.started).Round(100*time.Microsecond), delay.Round(100*time.Microsecond))
	case "server start":
		// The shim, then the shell and the server, appear in the slice
		// well before it answers: a moment of the first 50 ms after.
		tr.waitSlice(p, 0)
		delay := between(tr.rng, 0, 50*time.Millisecond)
		for t0 := time.Now(); time.Since(t0) < delay && !served() && !p.exited(); {
			time.Sleep(100 * time.Microsecond)
		}
		tr.note("%v after the server appeared in its slice", delay.Round(100*time.Microsecond))
	case "serving":
		for deadline := time.Now().Add(time.Minute); !served() && !p.exited() && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		delay := between(tr.rng, 0, time.Second)
		time.Sleep(delay)
		tr.note("%v after its first answer", delay.Round(time.Millisecond))
	}
	switch {
	case p.exited():
		tr.moment = "after exit"
	case served():
		tr.moment = "serving"
	case len(subdirs(tr.t, tr.parent)) > 0:
		tr.moment = "server start"
	default:
		tr.moment = "before slice"
	}
	p.cmd.Process.Kill()
	tr.wait(p)
	tr.outcome = p.exit()
	if tr.outcome != "killed by SIGKILL" {
		tr.fail("want killed by SIGKILL: %s: %s", tr.outcome, p.stderr.String())
	}
	os.Remove(notify) // the test server's, not the run's output
	tr.cleanupAfterKill()
}

// checkLatency accepts the output of a latency run that exited 0: one
// complete result.
func (tr *trial) checkLatency(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		tr.fail("exit 0 without its output: %v", err)
		return
	}
	var r latencyResult
	if err := json.Unmarshal(data, &r); err != nil || r.incomplete() != "" {
		tr.rejected[filepath.Base(path)] = fmt.Sprintf("not a complete result (%d bytes)", len(data))
		tr.fail("exit 0 with an incomplete output")
		return
	}
	tr.kept[filepath.Base(path)] = true
}

// livePids lists the live processes that carry this trial's tag: what it
// started, and their workload children wherever they went.
func (tr *trial) livePids() []int { return taggedPids(tr.tag) }

var tmpFileRE = regexp.MustCompile(`^\..*\.tmp$`)

// finish counts what the trial left behind, removes it (so that one broken
// trial does not poison the next), reports, and adds the trial to the tally.
func (tr *trial) finish(tally *kindTally) {
	t := tr.t
	// Counted first, removed after: killing a slice's processes would
	// otherwise hide them from the count.
	pids := tr.livePids()
	for _, pid := range pids {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		tr.leftovers = append(tr.leftovers, fmt.Sprintf("process %d (%s)", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '})))
	}
	// Slices under the trial's parent, and any slice one of its runs made
	// under the default parent (named after the run's PID).
	stale := subdirs(t, tr.parent)
	parents := []string{tr.s.hier.DefaultParent()}
	if tr.twin != "" {
		// Their twins in the cpuset hierarchy, the same way.
		stale = append(stale, subdirs(t, tr.twin)...)
		parents = append(parents, filepath.Dir(tr.twin))
	}
	if tr.acct != "" {
		// And their twins in the cpuacct hierarchy.
		stale = append(stale, subdirs(t, tr.acct)...)
		parents = append(parents, filepath.Dir(tr.acct))
	}
	for _, p := range tr.procs {
		for _, parent := range parents {
			matches, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("tb-%d-*", p.cmd.Process.Pid)))
			for _, m := range matches {
				if !tr.existing[m] {
					stale = append(stale, m)
				}
			}
		}
	}
	for _, d := range stale {
		tr.leftovers = append(tr.leftovers, "slice "+d)
	}
	// The kernel frees a closed program from a work queue: a moment.
	left := newSince(tracerPrograms(t), tr.bpf)
	for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = newSince(tracerPrograms(t), tr.bpf) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(left) > 0 {
		tr.leftovers = append(tr.leftovers, fmt.Sprintf("%d BPF program(s) of the tracer still loaded, held by no process: %v", len(left), left))
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for i := 0; i < 250 && len(tr.livePids()) > 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	for _, d := range stale {
		killCgroup(d)
		os.Remove(d)
	}
	for _, d := range slices.Backward(tr.twinsMade) {
		os.Remove(d) // the default parent's twin only once empty, as after a run
	}
	entries, _ := os.ReadDir(tr.outDir)
	for _, e := range entries {
		switch name := e.Name(); {
		case tr.kept[name]:
		case tmpFileRE.MatchString(name):
			tr.leftovers = append(tr.leftovers, "temporary file "+name)
		case tr.rejected[name] != "":
			tr.leftovers = append(tr.leftovers, "partial output "+name+": "+tr.rejected[name])
		default:
			tr.leftovers = append(tr.leftovers, "output "+name+" of a run that did not succeed")
		}
	}
	os.RemoveAll(tr.outDir)
	if err := os.Remove(tr.parent); err != nil {
		t.Errorf("remove the trial's parent %s: %v", tr.parent, err)
	}
	if tr.acct != "" {
		if err := os.Remove(tr.acct); err != nil {
			t.Errorf("remove the trial's parent's cpuacct twin %s: %v", tr.acct, err)
		}
		os.Remove(filepath.Dir(tr.acct)) // the default parent's twin, once empty, as after a run
	}

	moment := tr.moment
	if moment == "" {
		moment = "-"
	}
	t.Logf("%s %2d: %-22s %-18s %s", tr.kind, tr.i+1, moment, tr.outcome, strings.Join(tr.notes, "; "))
	if len(tr.failures)+len(tr.leftovers) > 0 {
		var stderr []string
		for _, p := range tr.procs {
			stderr = append(stderr, strings.TrimSpace(p.stderr.String()))
		}
		t.Errorf("%s trial %d (TB_SOAK_SEED=%d, %s): failures %q, leftovers %q; stderr: %q",
			tr.kind, tr.i+1, tr.s.seed, moment, tr.failures, tr.leftovers, stderr)
	}
	tally.n++
	if len(tr.failures) > 0 {
		tally.failures++
	}
	tally.left += len(tr.leftovers)
	tally.outcomes[tr.outcome]++
	if tr.moment != "" {
		tally.moments[tr.moment]++
	}
}

// soakTable is the summary: one row per kind.
func soakTable(s *soak, tallies []*kindTally, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: cgroup v%d, %d trials per kind, TB_SOAK_SEED=%d, %v in all\n",
		s.hier.Version, s.trials, s.seed, elapsed.Round(100*time.Millisecond))
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "trial\tn\tfailures\tleftovers\ttime\toutcomes\tmoments")
	for _, k := range tallies {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%v\t%s\t%s\n", k.name, k.n, k.failures, k.left,
			k.elapsed.Round(100*time.Millisecond), counts(k.outcomes), counts(k.moments))
	}
	w.Flush()
	return b.String()
}

// counts renders a tally as "a ×3, b ×1", most frequent first.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
