package compare

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Defaults, in one place.
const (
	DefaultAlpha        = 0.05
	DefaultThresholdPct = 5.0
	// DefaultCPUThresholdPct is the CPU time per iteration's smallest
	// change: the CPU clock moves with the code and far less with the
	// machine than the wall time does. In A/A pairs of a ≈100 ms command
	// at 0.5 CPUs, interleaved in five rounds a side beside a busy loop
	// (BenchmarkCompareGate), it moved by at most about 1%; run one side
	// after the other, in steps of about 3.5% that last seconds.
	DefaultCPUThresholdPct = 3.0
	// Confidence is the level of the interval shown as the spread.
	Confidence = 0.95
)

// DefaultMatch are the keys that make two results the same configuration:
// what ran and under which limits (the configuration parameters that are
// keys, config.Params), not where or when; and the Kubernetes node the
// result names (sweep --emit, collect), so that results of several nodes
// are compared node by node rather than pooled. A result run outside a
// cluster names no node: local results match as they always have.
var DefaultMatch = func() []string {
	var names []string
	for _, p := range config.Params {
		if p.Key != "" {
			names = append(names, p.Name)
		}
	}
	return append(names, "node")
}()

// keyDef is one configuration key: its name for --match, its name in the
// JSON output, and how it is read from a result.
type keyDef struct {
	name, json string
	get        keyReader
}

// keyDefs are the configuration's keys (keys.go), then where and how it
// ran.
var keyDefs = func() []keyDef {
	return append(configKeyDefs(),
		keyDef{"host", "hostname", func(r *report.Report) (string, any) { return r.Host.Hostname, r.Host.Hostname }},
		keyDef{"kernel", "kernel", func(r *report.Report) (string, any) { return r.Host.Kernel, r.Host.Kernel }},
		keyDef{"version", "cgroup_version", func(r *report.Report) (string, any) {
			return strconv.Itoa(r.Cgroup.Version), r.Cgroup.Version
		}},
		keyDef{"mode", "cgroup_mode", func(r *report.Report) (string, any) { return r.Cgroup.Mode, r.Cgroup.Mode }},
		keyDef{"node", "node", func(r *report.Report) (string, any) { return r.Host.Node, r.Host.Node }},
	)
}()

// Keys lists every key --match accepts, in the order keys are shown.
func Keys() []string {
	names := make([]string, len(keyDefs))
	for i, k := range keyDefs {
		names[i] = k.name
	}
	return names
}

// ErrMatch says that a --match list names an unknown key or none.
var ErrMatch = errors.New("invalid match keys")

// ParseMatch reads a comma-separated list of keys. Duplicates are dropped;
// the order does not matter (keys are always shown in the order of Keys).
// A list of +KEY and -KEY only adds to or takes from DefaultMatch: -node
// compares one node's results with another's.
func ParseMatch(s string) ([]string, error) {
	var out []string
	fields := strings.Split(s, ",")
	relative, absolute := 0, 0
	for _, f := range fields {
		switch f = strings.TrimSpace(f); {
		case f == "":
		case strings.HasPrefix(f, "+") || strings.HasPrefix(f, "-"):
			relative++
		default:
			absolute++
		}
	}
	if relative > 0 && absolute > 0 {
		return nil, fmt.Errorf("%w: +KEY and -KEY change the default list; do not mix them with plain keys", ErrMatch)
	}
	if relative > 0 {
		out = slices.Clone(DefaultMatch)
	}
	for _, f := range fields {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		op := f[0]
		if op == '+' || op == '-' {
			f = f[1:]
		}
		if !slices.Contains(Keys(), f) {
			return nil, fmt.Errorf("%w: unknown key %q", ErrMatch, f)
		}
		if op == '-' {
			out = slices.DeleteFunc(out, func(k string) bool { return k == f })
			continue
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no key given", ErrMatch)
	}
	return out, nil
}

// Options are the thresholds of a comparison.
type Options struct {
	// Match names the keys that make two results the same configuration
	// (see Keys); empty means DefaultMatch. Unknown keys are ignored with
	// a warning: validate user input with ParseMatch.
	Match []string
	// Alpha is the significance level of the U test; 0 means DefaultAlpha.
	Alpha float64
	// ThresholdPct is the smallest change of the median, in percent, that
	// counts: a change must be statistically significant AND at least this
	// large. 0 counts every significant change.
	ThresholdPct float64
	// CPUThresholdPct is ThresholdPct for the CPU time per iteration.
	CPUThresholdPct float64
	// Judge is what a change is judged by (JudgeCode, JudgeWall); ""
	// means JudgeCode.
	Judge string
}

// Verdict is the outcome for one configuration.
type Verdict string

const (
	Regression  Verdict = "regression"  // significantly slower
	Improvement Verdict = "improvement" // significantly faster
	NoChange    Verdict = "none"        // no significant change, or none could be shown
)

// Field is one key of a configuration.
type Field struct {
	Name  string // as --match names it
	JSON  string // its name in the JSON output
	Text  string // as shown: 100ms, max, 4; "" for a key not set
	Value any    // as in the result file: 100000, -1, 4; nil for null
}

// shown says whether f is named in keys and labels. A key not set (no
// --cpuset, no --pin) is left out, so that results from before it existed
// read as they did; it still tells configurations apart.
func (f Field) shown() bool { return f.Text != "" }

// Side is one input of the comparison.
type Side struct {
	Name    string // set by the caller (a file name); used by the renderers
	Results int    // how many results it held
}

// Summary describes the durations of one configuration on one side, pooled
// over every result with that configuration. Times are in milliseconds.
type Summary struct {
	Runs   int       // results pooled
	N      int       // iterations, over all pooled results
	Values []float64 // the pooled durations_ms, in file order
	Center float64   // the median (R-7, as p50_ms in a run result)
	Lo, Hi float64   // a confidence interval of the median
	// Confidence is the actual confidence of [Lo, Hi]: at least the
	// package's Confidence when N allows, less when [Lo, Hi] is the range.
	Confidence float64
	Notes      []string // about this side: pooling, a spread that is the full range
	// ThrottledFraction is Σ nr_throttled / Σ nr_periods over the pooled
	// results; nil when a result lacks the counters or no period ran.
	ThrottledFraction *float64
	// ModelRatio is the model ratio (measured mean / expected) averaged
	// over the pooled iterations; nil without a model.
	ModelRatio *float64
	// CPU is the pooled CPU time per iteration (counters_per_iteration),
	// in file order; nil where a result lacks it.
	CPU []float64
	// Machine is what the machine's other work cost this side.
	Machine Machine
	// P99Share is what its slowest iterations spent their time on
	// (--trace's breakdown, pooled: throttle.PoolShares); nil where no
	// result has one.
	P99Share *report.Shares
}

// Row is one configuration found on both sides.
type Row struct {
	Key       string // the configuration as text: "workload=bcrypt cost=4 …"
	Fields    []Field
	Old, New  Summary
	ChangePct float64 // change of the median wall time in percent, positive = slower; NaN when it cannot be computed
	P         float64 // two-sided Mann-Whitney U test of the wall times; NaN when no test could be made
	// WallSignificant: P < Alpha and |ChangePct| ≥ ThresholdPct.
	WallSignificant bool
	// CPU is the change of the CPU time per iteration, where both sides
	// have it; nil where not.
	CPU *Change
	// Significant says the verdict is a change (Judge decides by what),
	// Cause what moved (Row.Why says it in words).
	Significant bool
	Verdict     Verdict
	Cause       Cause
	Warnings    []report.Warning // about this comparison: too few iterations to reach Alpha, no iterations
}

// Unmatched is a configuration found on one side only.
type Unmatched struct {
	Key     string
	Fields  []Field
	Results int
}

// Result is a whole comparison.
type Result struct {
	Options  Options // as used, defaults filled in
	Old, New Side
	Rows     []Row       // in the order the configurations first appear in old
	OnlyOld  []Unmatched // configurations without a partner, listed rather than dropped
	OnlyNew  []Unmatched
	Warnings []report.Warning // about the whole comparison
	// Suggest, where configurations went unpaired, is a --match under
	// which some of them pair without pooling configurations that are
	// apart now; its zero value where there is none.
	Suggest Suggestion
}

// Suggestion is a --match value (Match, "" for the default keys) and how
// many more configurations it pairs (Pairs, 0: no suggestion).
type Suggestion struct {
	Match string
	Pairs int
}

// Text says it for a person: "--match -quota would pair 1 configuration";
// "" without one.
func (s Suggestion) Text() string {
	switch {
	case s.Pairs == 0:
		return ""
	case s.Match == "":
		return fmt.Sprintf("the default --match would pair %s", words.N(s.Pairs, "configuration"))
	}
	return fmt.Sprintf("--match %s would pair %s", s.Match, words.N(s.Pairs, "configuration"))
}

// Unpaired says whether w is the warning that nothing was compared: the
// text table's verdict and its "only in" lines say so, and the command's
// error says why and what --match would pair them, once.
func Unpaired(w report.Warning) bool { return w.Kind == report.KindNothingCompared }

// Count is how many rows have each verdict.
func (r Result) Count(v Verdict) int {
	n := 0
	for _, row := range r.Rows {
		if row.Verdict == v {
			n++
		}
	}
	return n
}

type group struct {
	key    string
	fields []Field
	runs   []*report.Report
}

// Compare matches old and new results by configuration and compares each
// pair. Several results with the same configuration on one side are pooled.
func Compare(old, new []report.Report, opts Options) Result {
	res := Result{Options: opts, Old: Side{Results: len(old)}, New: Side{Results: len(new)}}
	if len(res.Options.Match) == 0 {
		res.Options.Match = DefaultMatch
	}
	if res.Options.Alpha == 0 {
		res.Options.Alpha = DefaultAlpha
	}
	if res.Options.Judge == "" {
		res.Options.Judge = JudgeCode
	}
	var keys []keyDef
	for _, k := range keyDefs {
		if slices.Contains(res.Options.Match, k.name) {
			keys = append(keys, k)
		}
	}
	for _, m := range res.Options.Match {
		if !slices.Contains(Keys(), m) {
			res.Warnings = append(res.Warnings, report.Warn(report.KindUnknownMatchKey, "unknown match key %q ignored", m))
		}
	}
	res.Options.Match = nil
	for _, k := range keys {
		res.Options.Match = append(res.Options.Match, k.name)
	}

	og, ng := groupBy(old, keys), groupBy(new, keys)
	newByKey := map[string]*group{}
	for _, g := range ng {
		newByKey[g.key] = g
	}
	matched := map[string]bool{}
	for _, o := range og {
		n, ok := newByKey[o.key]
		if !ok {
			res.OnlyOld = append(res.OnlyOld, Unmatched{Key: o.key, Fields: o.fields, Results: len(o.runs)})
			continue
		}
		matched[o.key] = true
		res.Rows = append(res.Rows, compareGroups(o, n, res.Options))
	}
	for _, n := range ng {
		if !matched[n.key] {
			res.OnlyNew = append(res.OnlyNew, Unmatched{Key: n.key, Fields: n.fields, Results: len(n.runs)})
		}
	}
	if len(res.OnlyOld) > 0 && len(res.OnlyNew) > 0 {
		res.Suggest = suggest(old, new, keys, og, ng, len(res.Rows))
	}
	hint := ""
	if t := res.Suggest.Text(); t != "" {
		hint = "; " + t
	}
	pooled := pooledEnough(og, ng)
	res.Warnings = append(res.Warnings, carried("old", old, pooled)...)
	res.Warnings = append(res.Warnings, carried("new", new, pooled)...)
	res.Warnings = append(res.Warnings, machinesDiffer(res.Rows)...)
	if len(res.Rows) == 0 {
		res.Warnings = append(res.Warnings, report.Warn(report.KindNothingCompared, "no configuration is on both sides: nothing was compared (matching on %s)%s", strings.Join(res.Options.Match, ","), hint))
	} else if len(res.OnlyOld)+len(res.OnlyNew) > 0 {
		res.Warnings = append(res.Warnings, report.Warn(report.KindUnpaired, "%d configuration(s) only in old and %d only in new were not compared (matching on %s)%s",
			len(res.OnlyOld), len(res.OnlyNew), strings.Join(res.Options.Match, ","), hint))
	}
	return res
}

// maxSuggestPairs bounds the unpaired groups suggest looks at pairwise.
const maxSuggestPairs = 100_000

// suggest finds the --match that pairs the most configurations left
// unpaired: among the keys in which an unpaired old configuration and an
// unpaired new one differ, the fewest (quota, where 5ms and 4ms were meant
// to be compared), taken from the keys; never one that would pool
// configurations that are apart now, on either side.
func suggest(old, new []report.Report, keys []keyDef, og, ng []*group, paired int) Suggestion {
	var onlyOld, onlyNew []*group
	newKeys, oldKeys := map[string]bool{}, map[string]bool{}
	for _, g := range ng {
		newKeys[g.key] = true
	}
	for _, g := range og {
		oldKeys[g.key] = true
		if !newKeys[g.key] {
			onlyOld = append(onlyOld, g)
		}
	}
	for _, g := range ng {
		if !oldKeys[g.key] {
			onlyNew = append(onlyNew, g)
		}
	}
	if len(onlyOld)*len(onlyNew) > maxSuggestPairs {
		return Suggestion{}
	}
	// The fewest keys in which some pair differs; every such set.
	best, sets := len(keys)+1, map[string][]int{}
	for _, o := range onlyOld {
		for _, n := range onlyNew {
			var diff []int
			for i := range keys {
				if o.fields[i].Text != n.fields[i].Text {
					diff = append(diff, i)
				}
			}
			if len(diff) == 0 || len(diff) > best {
				continue
			}
			if len(diff) < best {
				best, sets = len(diff), map[string][]int{}
			}
			sets[fmt.Sprint(diff)] = diff
		}
	}
	var out Suggestion
	for _, k := range slices.Sorted(maps.Keys(sets)) {
		drop := sets[k]
		var reduced []keyDef
		for i, kd := range keys {
			if !slices.Contains(drop, i) {
				reduced = append(reduced, kd)
			}
		}
		if len(reduced) == 0 {
			continue
		}
		ro, rn := groupBy(old, reduced), groupBy(new, reduced)
		if len(ro) != len(og) || len(rn) != len(ng) {
			continue // it would pool configurations that are apart now
		}
		inNew := map[string]bool{}
		for _, g := range rn {
			inNew[g.key] = true
		}
		pairs := 0
		for _, g := range ro {
			if inNew[g.key] {
				pairs++
			}
		}
		if more := pairs - paired; more > out.Pairs {
			out = Suggestion{Match: matchFlag(reduced), Pairs: more}
		}
	}
	return out
}

// matchFlag is keys as --match gives them: +KEY and -KEY against the
// default ("-quota") or the list itself, whichever is shorter; "" for the
// default.
func matchFlag(keys []keyDef) string {
	var names, rel []string
	for _, k := range keys {
		names = append(names, k.name)
	}
	for _, d := range DefaultMatch {
		if !slices.Contains(names, d) {
			rel = append(rel, "-"+d)
		}
	}
	for _, n := range names {
		if !slices.Contains(DefaultMatch, n) {
			rel = append(rel, "+"+n)
		}
	}
	if abs := strings.Join(names, ","); len(rel) > 0 && len(abs) < len(strings.Join(rel, ",")) {
		return abs
	}
	return strings.Join(rel, ",")
}

func groupBy(reps []report.Report, keys []keyDef) []*group {
	var out []*group
	byKey := map[string]*group{}
	for i := range reps {
		r := &reps[i]
		var fields []Field
		var parts []string
		for _, k := range keys {
			text, v := k.get(r)
			f := Field{Name: k.name, JSON: k.json, Text: text, Value: v}
			fields = append(fields, f)
			if f.shown() {
				parts = append(parts, k.name+"="+text)
			}
		}
		key := strings.Join(parts, " ")
		g, ok := byKey[key]
		if !ok {
			g = &group{key: key, fields: fields}
			byKey[key] = g
			out = append(out, g)
		}
		g.runs = append(g.runs, r)
	}
	return out
}

func compareGroups(o, n *group, opts Options) Row {
	row := Row{Key: o.key, Fields: o.fields, Old: summarize(o.runs), New: summarize(n.runs),
		ChangePct: math.NaN(), P: math.NaN(), Verdict: NoChange}
	n1, n2 := row.Old.N, row.New.N
	if n1 == 0 || n2 == 0 {
		row.Warnings = append(row.Warnings, report.Warn(report.KindNoIterations, "n=%d+%d: a side without iterations cannot be compared", n1, n2))
		return row
	}
	if row.Old.Center != 0 {
		row.ChangePct = (row.New.Center/row.Old.Center - 1) * 100
	}
	row.P = stats.UTest(row.Old.Values, row.New.Values)
	if stats.UTestMinP(n1, n2) >= opts.Alpha {
		row.Warnings = append(row.Warnings, report.Warn(report.KindFewIterations, "n=%d+%d cannot reach p<%v; need at least %d iterations on each side",
			n1, n2, opts.Alpha, stats.UTestNeededN(opts.Alpha)))
	}
	row.WallSignificant = row.P < opts.Alpha && math.Abs(row.ChangePct) >= opts.ThresholdPct
	if row.Old.CPU != nil && row.New.CPU != nil {
		c := change(row.Old.CPU, row.New.CPU, opts.Alpha, opts.CPUThresholdPct)
		row.CPU = &c
	}
	row.judge(opts.Judge)
	return row
}

func summarize(runs []*report.Report) Summary {
	s := Summary{Runs: len(runs)}
	var periods, throttled uint64
	counters := true
	var ratios, weights []float64
	for _, r := range runs {
		s.Values = append(s.Values, r.DurationsMs...)
		t := r.Throttling
		if t.NrPeriods == nil || t.NrThrottled == nil {
			counters = false
		} else {
			periods += *t.NrPeriods
			throttled += *t.NrThrottled
		}
		if r.Model.Ratio > 0 && len(r.DurationsMs) > 0 {
			ratios = append(ratios, r.Model.Ratio)
			weights = append(weights, float64(len(r.DurationsMs)))
		}
	}
	s.N = len(s.Values)
	s.CPU, s.Machine = cpuOf(runs), machineOf(runs)
	var bs []*report.Breakdown
	for _, r := range runs {
		bs = append(bs, r.Breakdown)
	}
	s.P99Share = throttle.PoolShares(bs)
	if counters && periods > 0 {
		f := float64(throttled) / float64(periods)
		s.ThrottledFraction = &f
	}
	if len(ratios) > 0 {
		// Each result's ratio weighted by its iterations: the pooled ratio.
		r := stat.Mean(ratios, weights)
		s.ModelRatio = &r
	}
	if s.Runs > 1 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d results pooled: %s", s.Runs, words.N(s.N, "iteration")))
	}
	if nodes := nodesOf(runs); len(nodes) > 1 {
		s.Notes = append(s.Notes, fmt.Sprintf("pooled from %s (%s); add node to --match (+node) to compare them one by one",
			words.N(len(nodes), "node"), strings.Join(nodes, ", ")))
	}
	if s.N == 0 {
		s.Center, s.Lo, s.Hi = math.NaN(), math.NaN(), math.NaN()
		return s
	}
	sorted := slices.Clone(s.Values)
	slices.Sort(sorted)
	s.Center = stats.Quantile(sorted, 0.5)
	// benchstat's interval, not stats.QuantileCI's: they differ on purpose
	// (stats.MedianCI says how).
	var ok bool
	if s.Lo, s.Hi, s.Confidence, ok = stats.MedianCI(sorted, Confidence); !ok {
		// Too few values for the interval: the range, which covers the
		// median with probability 1 - 2·0.5ⁿ; say so.
		s.Notes = append(s.Notes, fmt.Sprintf("n=%d: ± is the full range, a %.0f%% confidence interval of the median; %.0f%% needs at least %d iterations",
			s.N, math.Floor(100*s.Confidence), 100*Confidence, minCIN()))
	}
	return s
}

// nodesOf are the distinct nodes the runs name, in order.
func nodesOf(runs []*report.Report) []string {
	var out []string
	for _, r := range runs {
		if r.Host.Node != "" && !slices.Contains(out, r.Host.Node) {
			out = append(out, r.Host.Node)
		}
	}
	return out
}

// minCIN is the smallest sample whose range is a Confidence interval of
// the median.
func minCIN() int {
	n := 1
	for 1-2*math.Pow(0.5, float64(n)) < Confidence {
		n++
	}
	return n
}

// carried are the warnings of one side's results, each once, named by the
// side and counted: a number one of them could not trust is not trusted
// in the comparison either. Each keeps its kind, so that a script acts on
// a busy machine whichever side it was on.
func carried(side string, reps []report.Report, pooled map[*report.Report]bool) []report.Warning {
	var order []report.Warning
	count := map[report.Warning]int{}
	for i := range reps {
		r := &reps[i]
		seen := map[report.Warning]bool{}
		for _, w := range r.Warnings {
			// How many iterations a side needs is judged on the pool, in
			// each row (compareGroups); so are the periods a pool spans.
			if seen[w] || w.Kind == report.KindFewIterations || (w.Kind == report.KindFewPeriods && pooled[r]) {
				continue
			}
			seen[w] = true
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	out := make([]report.Warning, len(order))
	for i, w := range order {
		out[i] = report.Warning{Kind: w.Kind, Side: side, Text: fmt.Sprintf("%s (%d of %s): %s", side, count[w], words.N(len(reps), "result"), w.Text)}
	}
	return out
}

// pooledEnough is the results whose few_periods warning their pool
// answers: those pooled with others of their configuration whose
// iterations span at least minPooledPeriods of its period in all. A run
// in rounds (docs/ci.md) is several short results, each warned, whose
// pool is not short.
func pooledEnough(groups ...[]*group) map[*report.Report]bool {
	out := map[*report.Report]bool{}
	for _, gs := range groups {
		for _, g := range gs {
			if len(g.runs) < 2 || g.runs[0].Cgroup.PeriodUs == nil || *g.runs[0].Cgroup.PeriodUs <= 0 {
				continue
			}
			span := 0.0
			for _, r := range g.runs {
				for _, d := range r.DurationsMs {
					span += d
				}
			}
			if span >= minPooledPeriods*float64(*g.runs[0].Cgroup.PeriodUs)/1000 {
				for _, r := range g.runs {
					out[r] = true
				}
			}
		}
	}
	return out
}

// minPooledPeriods is build.DefaultThresholds.MinPeriods: the periods a
// window spans before where it falls in one stops mattering.
const minPooledPeriods = 10

// machinesDiffer warns where the two sides' machines were loaded
// differently enough to move a wall time (Machine.Differs), each such
// configuration named with its figures.
func machinesDiffer(rows []Row) []report.Warning {
	var out []report.Warning
	for _, r := range rows {
		if r.Old.Machine.Differs(r.New.Machine) {
			out = append(out, report.Warn(report.KindMachinesDiffer, "the machines differed (%s): %s; a wall time change may be theirs, and CPU per iteration is the code's",
				cmp.Or(r.Key, "the configuration"), r.Old.Machine.Text(r.New.Machine)))
		}
	}
	return out
}
