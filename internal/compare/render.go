package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// Formats lists the output formats of a comparison.
var Formats = []string{"text", "markdown", "json", render.GitHubActionBenchmark, render.BMF}

// Write renders res as text (a benchstat-like table), markdown (for a pull
// request or a CI job summary) or json (for machines). The tables show the
// columns v chooses; text fits v's width (table.Fit).
func Write(w io.Writer, res Result, format string, v table.View) error {
	var s string
	switch format {
	case "text":
		s = textTable(res, v)
	case "markdown":
		s = markdownTable(res, v.Columns)
	case "json":
		b, err := json.MarshalIndent(toJSON(res), "", "  ")
		if err != nil {
			return err
		}
		s = string(b) + "\n"
	case render.GitHubActionBenchmark, render.BMF:
		return render.WriteMetrics(w, metrics(res), format)
	default:
		return fmt.Errorf("unknown format %q", format)
	}
	_, err := io.WriteString(w, s)
	return err
}

// mark returns the footnote markers of msgs, joined by "˒".
func mark(notes *table.Notes, msgs ...string) string {
	var refs []string
	for _, m := range msgs {
		refs = append(refs, notes.Ref(m))
	}
	return strings.Join(refs, "˒")
}

func prefixed(prefix string, msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = prefix + m
	}
	return out
}

// cells is a row of the table in both human formats.
type cells struct {
	label, old, new, change, cpu, throttled, ratio string
	bold                                           bool // a significant change
}

var header = cells{label: "configuration", old: "old time/iter", new: "new time/iter", change: "vs old", cpu: "CPU/iter vs old", throttled: "throttled", ratio: "model ratio"}

// Columns are the names --columns takes, in the table's order.
var Columns = []string{"configuration", "old", "new", "vs_old", "cpu_vs_old", "throttled", "model_ratio"}

// columns are the table's: the label is the rows' key; the two sides and
// the change are always shown, and a narrow terminal drops the model
// ratio before the throttled periods.
func columns(text bool) []table.Column {
	cols := []table.Column{
		{Name: header.label, Kind: table.Key}, {Name: header.old, Align: table.Right, Headline: true},
		{Name: header.new, Align: table.Right, Headline: true}, {Name: header.change, Headline: true},
		{Name: header.cpu, Headline: true},
		{Name: header.throttled, Align: table.Right, Rank: 1}, {Name: header.ratio, Align: table.Right, Rank: 2},
	}
	for i := range cols {
		cols[i].ID = Columns[i]
		if text {
			// benchstat's layout: left-aligned cells, the label unnamed.
			cols[i].Align = table.Left
		}
	}
	if text {
		cols[0].Name = ""
	}
	return cols
}

// layout turns res into table rows, the common part of every
// configuration, footnotes and the unmatched lists.
type layout struct {
	common           []Field
	rows             []cells
	onlyOld, onlyNew []string
	notes            table.Notes
}

func makeLayout(res Result) layout {
	var l layout
	var all [][]Field
	for _, r := range res.Rows {
		all = append(all, r.Fields)
	}
	for _, u := range append(append([]Unmatched{}, res.OnlyOld...), res.OnlyNew...) {
		all = append(all, u.Fields)
	}
	varies := map[string]bool{}
	if len(all) > 1 {
		for i, f := range all[0] {
			same := true
			for _, other := range all[1:] {
				same = same && other[i].Text == f.Text
			}
			if same {
				l.common = append(l.common, f)
			} else {
				varies[f.Name] = true
			}
		}
	}
	label := func(fields []Field) string {
		var parts []string
		for _, f := range fields {
			if (len(all) <= 1 || varies[f.Name]) && f.shown() {
				parts = append(parts, f.Name+"="+f.Text)
			}
		}
		return strings.Join(parts, " ")
	}
	for _, r := range res.Rows {
		c := cells{label: label(r.Fields)}
		c.old = summaryText(r.Old) + mark(&l.notes, r.Old.Notes...)
		c.new = summaryText(r.New) + mark(&l.notes, r.New.Notes...)
		c.change = changeText(r) + mark(&l.notes, prefixed("warning: ", report.Texts(r.Warnings))...)
		c.cpu = cpuText(r)
		if why := r.Why(); why != "" {
			c.cpu += mark(&l.notes, why)
		}
		if why := causesText(r); why != "" {
			c.change += mark(&l.notes, why)
		}
		c.bold = r.Significant
		c.throttled = pairText(r.Old.ThrottledFraction, r.New.ThrottledFraction, func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) })
		c.ratio = pairText(r.Old.ModelRatio, r.New.ModelRatio, func(v float64) string { return fmt.Sprintf("%.2f", v) })
		l.rows = append(l.rows, c)
	}
	for _, u := range res.OnlyOld {
		l.onlyOld = append(l.onlyOld, label(u.Fields)+resultsText(u.Results))
	}
	for _, u := range res.OnlyNew {
		l.onlyNew = append(l.onlyNew, label(u.Fields)+resultsText(u.Results))
	}
	return l
}

// causesText says what each side's slowest iterations spent their time
// on, where either side was traced: "by cause, the p99 iterations: old
// 62% held by the quota, 38% on CPU; new 97% on CPU, 3% waiting for a
// CPU"; "" where neither was.
func causesText(r Row) string {
	if r.Old.P99Share == nil && r.New.P99Share == nil {
		return ""
	}
	side := func(s *report.Shares) string {
		if s == nil {
			return "not traced"
		}
		return throttle.SharesText(*s)
	}
	return fmt.Sprintf("by cause, the p99 iterations: old %s; new %s", side(r.Old.P99Share), side(r.New.P99Share))
}

func resultsText(n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(" (%d results)", n)
}

func fieldsText(fs []Field, sep string) string {
	var parts []string
	for _, f := range fs {
		if f.shown() {
			parts = append(parts, f.Name+"="+f.Text)
		}
	}
	return strings.Join(parts, sep)
}

func sideText(s Side, fallback string) string {
	name := s.Name
	if name == "" {
		name = fallback
	}
	if s.Results == 1 {
		return name + ", 1 result"
	}
	return fmt.Sprintf("%s, %d results", name, s.Results)
}

// verdictText sums up, e.g. "1 regression, 0 improvements, 2 without
// significant change, of 3 configurations compared".
func verdictText(res Result) string {
	if len(res.Rows) == 0 {
		return "nothing compared"
	}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	machine := 0
	for _, r := range res.Rows {
		if r.Cause == CauseMachine {
			machine++
		}
	}
	none := fmt.Sprintf("%d without significant change", res.Count(NoChange))
	if machine > 0 {
		none = fmt.Sprintf("%d without significant change (%d of them moved by the machine only)", res.Count(NoChange), machine)
	}
	return fmt.Sprintf("%s, %s, %s, of %s compared",
		plural(res.Count(Regression), "regression", "regressions"),
		plural(res.Count(Improvement), "improvement", "improvements"),
		none, plural(len(res.Rows), "configuration", "configurations"))
}

func methodText(res Result) []string {
	judged := fmt.Sprintf("judged by CPU per iteration where both sides have it (|change| ≥ %v%%), a wall change it does not show being the machine's where the machines' other load differed (--judge code)",
		res.Options.CPUThresholdPct)
	if res.Options.Judge == JudgeWall {
		judged = "judged by the wall time (--judge wall)"
	}
	return []string{
		fmt.Sprintf("significant: p < %v (two-sided Mann-Whitney U test on the per-iteration figures) and |change| ≥ %v%%; %s",
			res.Options.Alpha, res.Options.ThresholdPct, judged),
		fmt.Sprintf("time/iter: median ± %.0f%% confidence interval of the median; throttled: throttled periods; model ratio: measured mean / CFS model", 100*Confidence),
	}
}

func textTable(res Result, v table.View) string {
	l := makeLayout(res)
	var head, tail strings.Builder
	fmt.Fprintf(&head, "old: %s\n", sideText(res.Old, "old"))
	fmt.Fprintf(&head, "new: %s\n", sideText(res.New, "new"))
	// One configuration compared and nothing unmatched: its label is all
	// of it, said once above the table rather than as a wide column.
	alone := len(l.rows) == 1 && len(l.common) == 0 && len(l.onlyOld)+len(l.onlyNew) == 0
	switch {
	case alone:
		fmt.Fprintf(&head, "configuration: %s\n", l.rows[0].label)
	case len(l.common) > 0:
		fmt.Fprintf(&head, "common: %s\n", fieldsText(l.common, " "))
	}
	if len(l.onlyOld) > 0 {
		fmt.Fprintf(&tail, "only in old: %s\n", strings.Join(l.onlyOld, ", "))
	}
	if len(l.onlyNew) > 0 {
		fmt.Fprintf(&tail, "only in new: %s\n", strings.Join(l.onlyNew, ", "))
	}
	if len(l.onlyOld)+len(l.onlyNew) > 0 {
		tail.WriteString("\n")
	}
	fmt.Fprintf(&tail, "verdict: %s\n", verdictText(res))
	for _, m := range methodText(res) {
		tail.WriteString(m + "\n")
	}
	tail.WriteString(table.TextNotes(l.notes.Texts()))
	for _, w := range res.Warnings {
		if !Unpaired(w) {
			fmt.Fprintf(&tail, "warning: %s\n", w.Text)
		}
	}
	return table.Wrap(head.String(), v.Width) + tableText(l, alone, v) + table.Wrap(tail.String(), v.Width)
}

// tableText is the text table fitted to v: what the fitting left out, a
// blank line, the rows and a blank line; a blank line when no row was
// compared.
func tableText(l layout, alone bool, v table.View) string {
	if len(l.rows) == 0 {
		return "\n"
	}
	t := &table.Table{Columns: columns(true)}
	for _, c := range l.rows {
		t.Rows = append(t.Rows, []string{c.label, c.old, c.new, c.change, c.cpu, c.throttled, c.ratio})
	}
	if alone {
		t = table.Pick(t, table.Columns{Names: Columns[1:]})
	}
	t = dropCPU(t, l)
	f := table.Fit(t, v)
	var b strings.Builder
	b.WriteString(f.Header() + "\n")
	table.Text(&b, f.Table)
	return b.String() + "\n"
}

func markdownTable(res Result, cols table.Columns) string {
	l := makeLayout(res)
	var b strings.Builder
	b.WriteString("### throttlebench compare\n\n")
	side := func(s Side, fallback string) string {
		name, count, _ := strings.Cut(sideText(s, fallback), ", ")
		return "`" + mdCode(name) + "` (" + count + ")"
	}
	fmt.Fprintf(&b, "old: %s · new: %s", side(res.Old, "old"), side(res.New, "new"))
	if len(l.common) > 0 {
		fmt.Fprintf(&b, " · common: `%s`", mdCode(fieldsText(l.common, " ")))
	}
	b.WriteString("\n\n")
	if len(l.rows) > 0 {
		t := &table.Table{Style: table.Style{Dashes: 2}, Columns: columns(false)}
		for _, c := range l.rows {
			// Bold the judged number only: the markers and the p-value stay plain.
			bold := func(s string) string {
				num, rest, _ := strings.Cut(s, " ")
				return "**" + num + "** " + rest
			}
			change, cpu := c.change, c.cpu
			if c.bold && res.Rows[len(t.Rows)].Cause == CauseCode {
				cpu = bold(cpu)
			} else if c.bold {
				change = bold(change)
			}
			label := c.label
			if label != "" {
				label = "`" + mdCode(label) + "`"
			}
			t.Rows = append(t.Rows, []string{label, c.old, c.new, change, cpu, c.throttled, c.ratio})
		}
		table.Markdown(&b, dropCPU(table.Pick(t, cols), l))
		b.WriteString("\n")
	}
	if len(l.onlyOld) > 0 {
		fmt.Fprintf(&b, "Only in old: %s\n\n", mdCodeList(l.onlyOld))
	}
	if len(l.onlyNew) > 0 {
		fmt.Fprintf(&b, "Only in new: %s\n\n", mdCodeList(l.onlyNew))
	}
	v := verdictText(res)
	if res.Count(Regression) > 0 {
		first, rest, _ := strings.Cut(v, ", ")
		v = "**" + first + "**, " + rest
	}
	fmt.Fprintf(&b, "Verdict: %s.\n\n", v)
	if notes := l.notes.Texts(); len(notes) > 0 {
		b.WriteString(table.MarkdownNotes(notes))
		b.WriteString("\n")
	}
	// Warnings stand out: GitHub renders this as an alert box.
	warnings := report.Texts(res.Warnings)
	for i, r := range res.Rows {
		for _, w := range r.Warnings {
			warnings = append(warnings, fmt.Sprintf("`%s`: %s", mdCode(cmp.Or(l.rows[i].label, r.Key)), w.Text))
		}
	}
	if len(warnings) > 0 {
		b.WriteString("> [!WARNING]\n")
		for i, w := range warnings {
			if i > 0 {
				b.WriteString(">\n")
			}
			fmt.Fprintf(&b, "> %s\n", w)
		}
		b.WriteString("\n")
	}
	ms := methodText(res)
	fmt.Fprintf(&b, "<sub>%s.<br>%s.</sub>\n", ms[0], ms[1])
	return b.String()
}

// dropCPU leaves out the CPU column where no row has the CPU time on
// both sides (results from before compare judged it): a column of dashes
// would push the throttled periods and the model ratio, which explain a
// wall change, off a narrow table.
func dropCPU(t *table.Table, l layout) *table.Table {
	for _, r := range l.rows {
		if r.cpu != "–" {
			return t
		}
	}
	var keep []string
	for _, c := range t.Columns {
		if c.ID != "cpu_vs_old" {
			keep = append(keep, c.ID)
		}
	}
	return table.Pick(t, table.Columns{Names: keep})
}

// mdCode keeps backticks from ending a code span.
func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

func mdCodeList(items []string) string {
	out := make([]string, len(items))
	for i, it := range items {
		name, count, _ := strings.Cut(it, " (")
		out[i] = "`" + mdCode(name) + "`"
		if count != "" {
			out[i] += " (" + count
		}
	}
	return strings.Join(out, ", ")
}

// summaryText is "45.10ms ± 2%": the median and the larger half-width of
// its confidence interval, relative to it.
func summaryText(s Summary) string {
	if s.N == 0 {
		return "no iterations"
	}
	text := table.Ms(s.Center)
	if s.Center == 0 {
		return text
	}
	spread := 100 * max(s.Hi-s.Center, s.Center-s.Lo) / math.Abs(s.Center)
	if spread < 1 && spread > 0 {
		return fmt.Sprintf("%s ± %.1f%%", text, spread)
	}
	return fmt.Sprintf("%s ± %.0f%%", text, spread)
}

// changeText is "+12.3% (p=0.002 n=10+10)" for a significant change and
// "~ (p=0.481 n=10+10)" otherwise.
func changeText(r Row) string {
	n := fmt.Sprintf("n=%d+%d", r.Old.N, r.New.N)
	if math.IsNaN(r.P) {
		return "? (" + n + ")"
	}
	if !r.WallSignificant {
		return fmt.Sprintf("~ (%s %s)", pText(r.P), n)
	}
	return fmt.Sprintf("%+.1f%% (%s %s)", r.ChangePct, pText(r.P), n)
}

// cpuText is the CPU time per iteration's change as changeText says the
// wall time's; "–" where a side has none.
func cpuText(r Row) string {
	c := r.CPU
	switch {
	case c == nil:
		return "–"
	case math.IsNaN(c.P):
		return "?"
	case !c.Significant:
		return fmt.Sprintf("~ (%s)", pText(c.P))
	}
	return fmt.Sprintf("%+.1f%% (%s)", c.Pct, pText(c.P))
}

func pText(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

func pairText(old, new *float64, f func(float64) string) string {
	if old == nil && new == nil {
		return "–"
	}
	side := func(v *float64) string {
		if v == nil {
			return "–"
		}
		return f(*v)
	}
	return side(old) + " → " + side(new)
}

// The JSON output: units in the names, null where a value does not exist.

type jsonResult struct {
	Old          jsonSide         `json:"old"`
	New          jsonSide         `json:"new"`
	Match        []string         `json:"match"`
	Alpha        float64          `json:"alpha"`
	ThresholdPct float64          `json:"threshold_pct"`
	CPUThreshold float64          `json:"cpu_threshold_pct"`
	Judge        string           `json:"judge"`
	Center       string           `json:"center"`
	Confidence   float64          `json:"confidence"` // of the interval around the centre
	Test         string           `json:"test"`
	Verdicts     map[string]int   `json:"verdicts"`
	Rows         []jsonRow        `json:"rows"`
	OnlyOld      []jsonUnmatch    `json:"only_old"`
	OnlyNew      []jsonUnmatch    `json:"only_new"`
	Warnings     []report.Warning `json:"warnings"`
}

type jsonSide struct {
	Name    string `json:"name"`
	Results int    `json:"results"`
}

type jsonRow struct {
	Key       string         `json:"key"`
	Config    map[string]any `json:"config"`
	Old       jsonSummary    `json:"old"`
	New       jsonSummary    `json:"new"`
	ChangePct *float64       `json:"change_pct"`
	P         *float64       `json:"p"`
	// WallSignificant is the wall time's own significance; Significant
	// the verdict's, by what --judge judges (cause says which moved).
	WallSignificant bool             `json:"wall_significant"`
	CPU             *jsonChange      `json:"cpu"`
	Significant     bool             `json:"significant"`
	Verdict         Verdict          `json:"verdict"`
	Cause           *Cause           `json:"cause"`
	Why             string           `json:"why"`
	Warnings        []report.Warning `json:"warnings"`
}

// jsonChange is the CPU time per iteration's change.
type jsonChange struct {
	OldMedianMs *float64 `json:"old_median_ms"`
	NewMedianMs *float64 `json:"new_median_ms"`
	ChangePct   *float64 `json:"change_pct"`
	ChangeLoPct *float64 `json:"change_lo_pct"`
	ChangeHiPct *float64 `json:"change_hi_pct"`
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
}

// jsonMachine is what the machine's other work cost a side.
type jsonMachine struct {
	WaitShare  *float64 `json:"wait_share"`
	OthersCPUs *float64 `json:"others_cpus"`
}

type jsonSummary struct {
	Results           int       `json:"results"`
	N                 int       `json:"n"`
	MedianMs          *float64  `json:"median_ms"`
	CILoMs            *float64  `json:"ci_lo_ms"`
	CIHiMs            *float64  `json:"ci_hi_ms"`
	CIConfidence      *float64  `json:"ci_confidence"`
	ThrottledFraction *float64  `json:"throttled_fraction"`
	ModelRatio        *float64  `json:"model_ratio"`
	DurationsMs       []float64 `json:"durations_ms"`
	// CPUMsPerIteration are the pooled CPU times per iteration; null
	// where a result lacks them.
	CPUMsPerIteration []float64   `json:"cpu_ms_per_iteration"`
	Machine           jsonMachine `json:"machine"`
	// P99Share is what the slowest iterations spent their time on
	// (--trace); null where no result says.
	P99Share *report.Shares `json:"p99_share"`
	Notes    []string       `json:"notes"`
}

type jsonUnmatch struct {
	Key     string         `json:"key"`
	Config  map[string]any `json:"config"`
	Results int            `json:"results"`
}

// num is x for the JSON output: null when it does not exist, and rounded to
// ten significant digits, which drops the noise of the last bits (that also
// differ between CPUs that fuse multiply-adds and CPUs that do not).
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 10, 64), 64)
	return &x
}

func numPtr(x *float64) *float64 {
	if x == nil {
		return nil
	}
	return num(*x)
}

func configJSON(fs []Field) map[string]any {
	m := map[string]any{}
	for _, f := range fs {
		m[f.JSON] = f.Value
	}
	return m
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func toJSON(res Result) jsonResult {
	j := jsonResult{
		Old: jsonSide{res.Old.Name, res.Old.Results}, New: jsonSide{res.New.Name, res.New.Results},
		Match: res.Options.Match, Alpha: res.Options.Alpha, ThresholdPct: res.Options.ThresholdPct, CPUThreshold: res.Options.CPUThresholdPct, Judge: res.Options.Judge,
		Center: "median", Test: "mann-whitney-u, two-sided", Confidence: Confidence,
		Rows: []jsonRow{}, OnlyOld: []jsonUnmatch{}, OnlyNew: []jsonUnmatch{},
		Verdicts: map[string]int{string(Regression): res.Count(Regression), string(Improvement): res.Count(Improvement), string(NoChange): res.Count(NoChange)},
		Warnings: nonNil(res.Warnings),
	}
	sum := func(s Summary) jsonSummary {
		out := jsonSummary{Results: s.Runs, N: s.N, ThrottledFraction: numPtr(s.ThrottledFraction), ModelRatio: numPtr(s.ModelRatio),
			DurationsMs: s.Values, Notes: nonNil(s.Notes), CPUMsPerIteration: s.CPU,
			Machine: jsonMachine{WaitShare: numPtr(s.Machine.WaitShare), OthersCPUs: numPtr(s.Machine.OthersCPUs)}, P99Share: s.P99Share}
		if out.DurationsMs == nil {
			out.DurationsMs = []float64{}
		}
		if s.N > 0 {
			out.MedianMs, out.CILoMs, out.CIHiMs, out.CIConfidence = num(s.Center), num(s.Lo), num(s.Hi), num(s.Confidence)
		}
		return out
	}
	for _, r := range res.Rows {
		row := jsonRow{Key: r.Key, Config: configJSON(r.Fields), Old: sum(r.Old), New: sum(r.New),
			ChangePct: num(r.ChangePct), P: num(r.P), WallSignificant: r.WallSignificant, Significant: r.Significant, Verdict: r.Verdict,
			Why: r.Why(), Warnings: nonNil(r.Warnings)}
		if r.Cause != "" {
			c := r.Cause
			row.Cause = &c
		}
		if c := r.CPU; c != nil {
			row.CPU = &jsonChange{OldMedianMs: num(c.OldMs), NewMedianMs: num(c.NewMs), ChangePct: num(c.Pct),
				ChangeLoPct: num(c.LoPct), ChangeHiPct: num(c.HiPct), P: num(c.P), Significant: c.Significant}
		}
		j.Rows = append(j.Rows, row)
	}
	for _, u := range res.OnlyOld {
		j.OnlyOld = append(j.OnlyOld, jsonUnmatch{u.Key, configJSON(u.Fields), u.Results})
	}
	for _, u := range res.OnlyNew {
		j.OnlyNew = append(j.OnlyNew, jsonUnmatch{u.Key, configJSON(u.Fields), u.Results})
	}
	return j
}
