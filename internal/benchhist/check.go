package benchhist

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/words"
)

// The keys a run's baseline may be matched on (Options.Match): runs
// differ in these without any change of the code.
const (
	MatchMachine = "machine" // CPU model, CPUs, memory in GiB
	MatchKernel  = "kernel"  // uname -r
	MatchCgroup  = "cgroup"  // cgroup version and mount mode
	MatchGo      = "go"      // the Go version
)

// MatchKeys lists every key of Options.Match.
var MatchKeys = []string{MatchMachine, MatchKernel, MatchCgroup, MatchGo}

// DefaultMatch compares a run with the earlier runs on the same machine
// and kernel: a new Go or a new cgroup layout is a change worth seeing.
var DefaultMatch = []string{MatchMachine, MatchKernel}

// ParseMatch reads a comma-separated list of MatchKeys; "" matches nothing
// (every earlier run is the baseline).
func ParseMatch(s string) ([]string, error) {
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !slices.Contains(MatchKeys, k) {
			return nil, fmt.Errorf("unknown match key %q: want a comma-separated list of %s", k, strings.Join(MatchKeys, ", "))
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// Options of a check. The zero Alpha is compare.DefaultAlpha; a zero
// ThresholdPct counts every significant change.
type Options struct {
	Alpha        float64
	ThresholdPct float64
	// Match are the keys an earlier run must share with the newest to be
	// its baseline (GOMAXPROCS always). With none sharing them, the
	// change against every earlier run is shown but not judged.
	Match []string
	// Runs pools only the newest Runs earlier runs of the baseline; 0
	// pools all of them.
	Runs int
	// All judges every benchmark's newest run; otherwise only the
	// benchmarks of the newest run (the newest Time of any history) are
	// judged, and the others are listed as not in it (a benchmark that
	// skipped, or was removed).
	All bool
}

// Side is one side of a comparison: the samples of one metric.
type Side struct {
	Runs   int     // runs pooled
	N      int     // samples
	Median float64 // R-7, as stats.Quantile
}

// Row is one metric of one benchmark: the newest run against its baseline.
type Row struct {
	Pkg, Name string
	Procs     int
	Unit      string
	// Earlier is the baseline, Newest the newest run.
	Earlier, Newest Side
	// ChangePct is the change of the median in percent; NaN when there is
	// no baseline or its median is 0.
	ChangePct float64
	// P is stats.UTest's two-sided p of the newest samples against the
	// baseline; NaN without a baseline.
	P float64
	// Judged says a verdict could be given: a baseline on a matching
	// machine, and enough samples for p to reach Alpha.
	Judged bool
	// Moved is Judged, P < Alpha and |ChangePct| ≥ ThresholdPct.
	Moved bool
	// Better is benchfmt's knowledge of the unit: +1 higher is better, -1
	// lower is, 0 unknown.
	Better int
	// Warnings say why a row is not judged, or how its baseline was made.
	Warnings []string
}

// Stale is a benchmark that is not in the newest run.
type Stale struct {
	Pkg, Name string
	Procs     int
	Time      string // its own newest run
}

// Result is a whole check.
type Result struct {
	Options Options // as used, defaults filled in
	// Newest is the newest run's time; Commit and Dirty are its.
	Newest string
	Commit string
	Dirty  bool
	Rows   []Row
	Stale  []Stale
	// Warnings are about the histories (lines skipped when loading are the
	// caller's to add).
	Warnings []string
}

// Moved counts the rows that moved.
func (r Result) Moved() int {
	n := 0
	for _, row := range r.Rows {
		if row.Moved {
			n++
		}
	}
	return n
}

// Check tests the newest run of each benchmark against the earlier runs
// of its history, metric by metric: the newest samples against the pooled
// samples of the earlier runs that match it (Options.Match), with
// stats.UTest, compare's; the change is that of the median.
func Check(hs []History, opts Options) Result {
	if opts.Alpha == 0 {
		opts.Alpha = compare.DefaultAlpha
	}
	res := Result{Options: opts}
	for _, h := range hs {
		if t := h.Lines[len(h.Lines)-1]; later(t.Time, res.Newest) {
			res.Newest, res.Commit, res.Dirty = t.Time, t.Commit, t.Dirty
		}
	}
	for _, h := range hs {
		last := h.Lines[len(h.Lines)-1]
		if !opts.All && last.Time != res.Newest {
			res.Stale = append(res.Stale, Stale{Pkg: last.Pkg, Name: last.Name, Procs: last.Procs, Time: last.Time})
			continue
		}
		res.Rows = append(res.Rows, checkOne(h, opts)...)
	}
	return res
}

// later says time a is after b ("" is before everything); RFC 3339 times
// are compared as times, anything else as text.
func later(a, b string) bool {
	if b == "" {
		return a != ""
	}
	ta, errA := time.Parse(time.RFC3339, a)
	tb, errB := time.Parse(time.RFC3339, b)
	if errA != nil || errB != nil {
		return a > b
	}
	return ta.After(tb)
}

// checkOne is the rows of one history: its newest run (every line with the
// newest line's time) against the earlier ones.
func checkOne(h History, opts Options) []Row {
	last := h.Lines[len(h.Lines)-1]
	var newest, earlier, same []Line
	for _, l := range h.Lines {
		switch {
		case l.Time == last.Time:
			newest = append(newest, l)
		default:
			earlier = append(earlier, l)
			if matchKey(l, opts.Match) == matchKey(last, opts.Match) {
				same = append(same, l)
			}
		}
	}
	var common []string
	judgeable := true
	base := same
	switch {
	case len(earlier) == 0:
		common = append(common, "first run: no earlier run to compare with")
		judgeable = false
	case len(same) == 0:
		common = append(common, fmt.Sprintf("no earlier run with the same %s: shown against all %s, not judged",
			matchWords(opts.Match), runsWord(countRuns(earlier))))
		judgeable = false
		base = earlier
	}
	base = lastRuns(base, opts.Runs)

	var units []string
	for _, l := range newest {
		for u := range l.Metrics {
			if !slices.Contains(units, u) {
				units = append(units, u)
			}
		}
	}
	slices.Sort(units)
	var rows []Row
	for _, u := range units {
		row := Row{Pkg: last.Pkg, Name: last.Name, Procs: last.Procs, Unit: u, ChangePct: math.NaN(), P: math.NaN(),
			Better: benchfmt.UnitMetadataMap(nil).GetBetter(u), Warnings: slices.Clone(common)}
		nv, nr := pool(newest, u)
		ev, er := pool(base, u)
		row.Newest = side(nv, nr)
		row.Earlier = side(ev, er)
		judged := judgeable
		if len(base) > 0 && len(ev) == 0 {
			row.Warnings = append(row.Warnings, fmt.Sprintf("new metric: %s is not in the earlier runs", u))
			judged = false
		}
		if len(ev) > 0 && len(nv) > 0 {
			row.P = stats.UTest(ev, nv)
			if row.Earlier.Median != 0 {
				row.ChangePct = (row.Newest.Median/row.Earlier.Median - 1) * 100
			} else {
				row.Warnings = append(row.Warnings, "earlier median is 0: no change in percent")
				judged = false
			}
			if stats.UTestMinP(len(ev), len(nv)) >= opts.Alpha {
				row.Warnings = append(row.Warnings, fmt.Sprintf("too few samples: n=%d+%d cannot reach p<%v; a larger -count or more runs can",
					len(ev), len(nv), opts.Alpha))
				judged = false
			}
		}
		row.Judged = judged && len(ev) > 0 && len(nv) > 0
		row.Moved = row.Judged && row.P < opts.Alpha && math.Abs(row.ChangePct) >= opts.ThresholdPct
		rows = append(rows, row)
	}
	return rows
}

// matchKey is what an earlier run must share with the newest: GOMAXPROCS
// and the keys asked for.
func matchKey(l Line, keys []string) string {
	parts := []string{"procs=" + strconv.Itoa(l.Procs)}
	for _, k := range keys {
		switch k {
		case MatchMachine:
			parts = append(parts, l.Machine.key())
		case MatchKernel:
			parts = append(parts, l.Kernel)
		case MatchCgroup:
			parts = append(parts, fmt.Sprintf("v%d %s", l.Cgroup.Version, l.Cgroup.Mode))
		case MatchGo:
			parts = append(parts, l.Go)
		}
	}
	return strings.Join(parts, "\x00")
}

func matchWords(keys []string) string {
	if len(keys) == 0 {
		return "GOMAXPROCS"
	}
	return strings.Join(keys, ", ") + " and GOMAXPROCS"
}

func runsWord(n int) string { return words.N(n, "earlier run") }

// countRuns counts the distinct times of ls.
func countRuns(ls []Line) int {
	seen := map[string]bool{}
	for _, l := range ls {
		seen[l.Time] = true
	}
	return len(seen)
}

// lastRuns keeps the lines of the newest n runs of ls (file order); n ≤ 0
// keeps all.
func lastRuns(ls []Line, n int) []Line {
	if n <= 0 {
		return ls
	}
	seen := map[string]bool{}
	i := len(ls)
	for i > 0 {
		t := ls[i-1].Time
		if !seen[t] && len(seen) == n {
			break
		}
		seen[t] = true
		i--
	}
	return ls[i:]
}

// pool is every sample of unit in ls, and how many runs gave one.
func pool(ls []Line, unit string) ([]float64, int) {
	var vs []float64
	runs := map[string]bool{}
	for _, l := range ls {
		if s := l.Metrics[unit]; len(s) > 0 {
			vs = append(vs, s...)
			runs[l.Time] = true
		}
	}
	return vs, len(runs)
}

func side(vs []float64, runs int) Side {
	s := Side{Runs: runs, N: len(vs), Median: math.NaN()}
	if len(vs) > 0 {
		sorted := slices.Clone(vs)
		slices.Sort(sorted)
		s.Median = stats.Quantile(sorted, 0.5)
	}
	return s
}
