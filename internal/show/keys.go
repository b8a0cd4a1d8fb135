package show

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// A result does not say which flags were given, only what ran; a table of
// configurations read back shows, for each axis, the values a list would
// have named (sweep.Expand's spelling), where they differ between the
// results or from the flag's default. The CPU share is cpus (quota/period)
// however it was given.

// limitKey is one of the limits' axes, read from a result's cgroup.
type limitKey struct {
	flag, dflt string
	get        func(report.Cgroup) string
}

var limitKeys = []limitKey{
	{"period", "100ms", func(cg report.Cgroup) string {
		if cg.PeriodUs == nil {
			return "100ms"
		}
		return usDuration(*cg.PeriodUs)
	}},
	{"burst", "0s", func(cg report.Cgroup) string { return usDuration(cg.BurstUs) }},
	{"cpus", "max", cpusOf},
}

func usDuration(us int64) string { return (time.Duration(us) * time.Microsecond).String() }

// cpusOf is a cgroup's CPU share as --cpus writes it: quota/period, max
// when unlimited.
func cpusOf(cg report.Cgroup) string {
	if cg.QuotaUs < 0 || cg.PeriodUs == nil || *cg.PeriodUs <= 0 {
		return "max"
	}
	share := float64(cg.QuotaUs) / float64(*cg.PeriodUs)
	return strconv.FormatFloat(math.Round(share*1e6)/1e6, 'f', -1, 64)
}

func msDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// column is one column of a table read back: its flag, where it goes
// (rank) and its value in each result.
type column[R any] struct {
	flag string
	rank int
	get  func(R) string
	// dflt is its value when the flag is not given: shown where a
	// result's value is another; differ: shown only where results differ.
	dflt   string
	differ bool
}

// rows lays reps out under the columns that differ between them or from
// their defaults (the flag named fallback where none does), in rank order,
// the order of a list's axes (config.AxesFor).
func rows[R any](cols []column[R], reps []R, fallback string) []sweep.Outcome[R] {
	var shown []column[R]
	for _, c := range cols {
		v0 := c.get(reps[0])
		if slices.ContainsFunc(reps, func(r R) bool { v := c.get(r); return v != v0 || !c.differ && v != c.dflt }) {
			shown = append(shown, c)
		}
	}
	if len(shown) == 0 {
		if i := slices.IndexFunc(cols, func(c column[R]) bool { return c.flag == fallback }); i >= 0 {
			shown = cols[i : i+1]
		}
	}
	slices.SortStableFunc(shown, func(a, b column[R]) int { return a.rank - b.rank })
	out := make([]sweep.Outcome[R], len(reps))
	for i, r := range reps {
		var c sweep.Config
		for _, col := range shown {
			c = append(c, sweep.Param{Flag: col.flag, Value: col.get(r)})
		}
		out[i] = sweep.Outcome[R]{Config: c, Report: r}
	}
	return out
}

// rank is where a flag's column goes: the node first, then the axes in
// their order (AxisRank), a key that is no axis where config.Params puts
// it (before the workers, or after the CPU share).
func rank(flag string) int {
	if flag == "node" {
		return -1
	}
	p, ok := config.Lookup(flag)
	switch {
	case ok && p.Axis:
		return p.AxisRank
	case slices.IndexFunc(config.Params, func(q config.Param) bool { return q.Name == flag }) <
		slices.IndexFunc(config.Params, func(q config.Param) bool { return q.Name == "workers" }):
		return 0
	}
	return 100
}

// batchRows lays run results out as a sweep's rows: the keys compare
// matches them by (sweep.FromReports: the node, the batch, …) where they
// differ, and the axes as latency's are: the workload's own values (its
// name where the results ran different ones), the waits, the workers,
// gomaxprocs (the policy asked for, not the number it came to, which
// follows the workers) and the limits.
func batchRows(reps []report.Report) []sweep.Row {
	type col = column[*report.Report]
	ptrs := make([]*report.Report, len(reps))
	index := map[*report.Report]int{}
	for i := range reps {
		ptrs[i], index[&reps[i]] = &reps[i], i
	}
	own := []string{"workload", "workers", "gomaxprocs", "period", "burst", "cpus"}
	var cols []col
	name := reps[0].Config.Workload
	spec, err := decl.Lookup(name)
	if err != nil || slices.ContainsFunc(reps, func(r report.Report) bool { return r.Config.Workload != name }) {
		own = own[1:] // the workload key tells them apart
	} else {
		for _, p := range spec.Params {
			if !p.Axis() {
				continue
			}
			own = append(own, p.Name)
			cols = append(cols, col{p.Name, rank(p.Name), func(r *report.Report) string {
				if raw, ok := r.Config.Params.Raw(p.Key()); ok {
					return strings.Trim(string(raw), `"`)
				}
				return p.DefaultText()
			}, p.DefaultText(), false})
		}
	}
	from := sweep.FromReports(reps)
	for j, p := range from[0].Config {
		if !slices.Contains(own, p.Flag) {
			cols = append(cols, col{p.Flag, rank(p.Flag), func(r *report.Report) string { return from[index[r]].Config[j].Value }, "", true})
		}
	}
	cols = append(cols,
		col{"sleep", rank("sleep"), func(r *report.Report) string { return msDuration(r.Config.SleepMs).String() }, "0s", false},
		col{"sleep-every", rank("sleep-every"), func(r *report.Report) string {
			if r.Config.SleepMs == 0 { // 0 without sleeps
				return "1"
			}
			return strconv.Itoa(r.Config.SleepEvery)
		}, "1", false},
		col{"workers", rank("workers"), func(r *report.Report) string { return strconv.Itoa(r.Config.Workers) }, "1", false},
		col{"gomaxprocs", rank("gomaxprocs"), func(r *report.Report) string { return r.Config.GOMAXPROCSPolicy }, "workers", false})
	for _, k := range limitKeys {
		cols = append(cols, col{k.flag, rank(k.flag), func(r *report.Report) string { return k.get(r.Cgroup) }, k.dflt, false})
	}
	return rows(cols, ptrs, "cpus")
}
