package sizing

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/table"
)

// WriteFormats are what Write writes: size's own (Formats), and the arms
// table as CSV and markdown, which show writes of a saved result.
var WriteFormats = slices.Insert(slices.Clone(Formats), 2, "csv", "markdown")

// Write writes r as format (one of WriteFormats): json; text (what was
// asked, the arms table, the recommendation, then the warnings), its lines
// of prose wrapped at width (0: not wrapped); markdown, the same as a
// page; csv, the arms table alone; the formats CI tools read, the
// recommendation (writeCI).
func Write(w io.Writer, r Result, format string, width int) error {
	if isCI(format) {
		return writeCI(w, r, format)
	}
	switch format {
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	case "csv":
		return table.CSV(w, ArmsTable(r, false))
	case "markdown":
		var b strings.Builder
		b.WriteString(strings.ReplaceAll(strings.TrimSuffix(r.head(), "\n"), "\n", "<br>\n") + "\n\n")
		if err := table.Markdown(&b, ArmsTable(r, true)); err != nil {
			return err
		}
		b.WriteString("\n**" + strings.Replace(strings.ReplaceAll(r.recommendationLine(), "\n", "<br>\n"), ":", ":**", 1) + "\n")
		if len(r.Warnings) > 0 {
			b.WriteString("\n")
		}
		for _, s := range r.Warnings {
			b.WriteString("- warning: " + s.Text + "\n")
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	if _, err := io.WriteString(w, table.Wrap(r.head(), width)+"\n"); err != nil {
		return err
	}
	if err := table.Text(w, ArmsTable(r, true)); err != nil {
		return err
	}
	tail := "\n" + r.recommendationLine() + "\n"
	for _, s := range r.Warnings {
		tail += "warning: " + s.Text + "\n"
	}
	_, err := io.WriteString(w, table.Wrap(tail, width))
	return err
}

// head is what was asked: the target, the window, the bound and the grid.
func (r Result) head() string {
	var head strings.Builder
	what := "on the " + r.Loop + " loop"
	if r.Target != "" {
		what = "against " + r.Target + " (a fresh --serve server each window)"
	}
	fmt.Fprintf(&head, "size %s %s: windows of %s, period %v, confidence %s%%\n", r.SLO, what, r.Window,
		time.Duration(r.PeriodUs)*time.Microsecond, strconv.FormatFloat(100*r.Confidence, 'f', -1, 64))
	if r.BoundMs != nil {
		op := "≤"
		if !strings.Contains(r.SLO, "<=") {
			op = "<"
		}
		fmt.Fprintf(&head, "a window passes when its %s %s %s ms", r.stat(), op, table.Sig(*r.BoundMs, 3))
		if r.FloorMs != nil {
			fmt.Fprintf(&head, " (the harness's own floor: %s ms)", table.Sig(*r.FloorMs, 3))
		}
		head.WriteString("\n")
	}
	if r.Range != nil {
		fmt.Fprintf(&head, "grid: %d levels, %s to %s CPUs (%s)\n", len(r.Range.Levels), table.Sig(r.Range.MinCPUs, 3), table.Sig(r.Range.MaxCPUs, 3), r.Range.Default)
	}
	return head.String()
}

// stat is the SLO's statistic: p99, mean.
func (r Result) stat() string { return strings.SplitN(r.SLO, "<", 2)[0] }

// ArmsTable is the arms, one row each, as text, markdown and (people
// false) CSV show them: the unlimited arm first, then by CPUs (a usage
// rule's limit at its CPUs, a larger burst after a smaller), # the order
// they were measured in. Where windows gave no figure that counts (refused,
// or failed whatever their figure: short), the figure cell says why; for
// machines that is a column of its own, and the numbers are whole.
func ArmsTable(r Result, people bool) *table.Table {
	stat := r.stat()
	t := &table.Table{Columns: []table.Column{{Name: "#", Align: table.Right}, {Name: "cpus"}, {Name: "quota", Align: table.Right}, {Name: "burst", Align: table.Right},
		{Name: "windows", Align: table.Right}, {Name: stat + "_ms", Align: table.Right}, {Name: "verdict"}, {Name: "confidence", Align: table.Right}}}
	if !people {
		t.Columns = slices.Insert(t.Columns, 6, table.Column{Name: stat + "_ms_ci95_lo"}, table.Column{Name: stat + "_ms_ci95_hi"})
		t.Columns = append(t.Columns, table.Column{Name: "rule"}, table.Column{Name: "why"})
	}
	num := func(v float64) string {
		if people {
			return table.Sig(v, 3)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	// A --serve server that exited ended the search in the arm measured
	// last: its row says so (the headline says how).
	crashed, last := r.ServerExited, 0
	for i, a := range r.Arms {
		last = max(last, cmp.Or(a.Order, i+1))
	}
	for _, i := range r.armOrder() {
		a := r.Arms[i]
		order := cmp.Or(a.Order, i+1) // 0: a result from before arms[].order, whose arms are in the order measured
		why := a.why()
		if crashed && order == last {
			why = strings.TrimPrefix(why+", crashed", ", ")
		}
		cpus, quota := "unlimited", "max"
		if a.CPUs != nil {
			cpus, quota = num(*a.CPUs), (time.Duration(*a.QuotaUs) * time.Microsecond).String()
		}
		if a.Rule != "" && people {
			cpus += " (" + a.Rule + ")"
		}
		fig, lo, hi := "", "", ""
		if a.FigureMs != nil {
			fig = num(*a.FigureMs)
		}
		if ci := a.FigureMsCI95; ci != nil {
			lo, hi = num(ci[0]), num(ci[1])
		}
		conf := strconv.FormatFloat(a.Confidence, 'f', -1, 64)
		if people {
			conf = fmt.Sprintf("%.0f%%", 100*a.Confidence)
			switch {
			case fig == "":
				fig = "-"
			case lo != "":
				fig += " [" + lo + ", " + hi + "]"
			}
			if why != "" {
				fig += " (" + why + ")"
			}
		}
		row := []string{strconv.Itoa(order), cpus, quota, (time.Duration(a.BurstUs) * time.Microsecond).String(),
			fmt.Sprintf("%d/%d", a.Passes, len(a.Windows)), fig, string(a.Verdict), conf}
		if !people {
			row = slices.Insert(row, 6, lo, hi)
			row = append(row, a.Rule, why)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// armOrder is the arms' indexes in the table's order: the unlimited arm,
// then by CPUs, burst, the search's level before a rule's, and the order
// measured.
func (r Result) armOrder() []int {
	idx := make([]int, len(r.Arms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		a, b := r.Arms[i], r.Arms[j]
		switch {
		case a.CPUs == nil || b.CPUs == nil:
			return boolCmp(a.CPUs != nil, b.CPUs != nil)
		case *a.CPUs != *b.CPUs:
			return cmpFloat(*a.CPUs, *b.CPUs)
		case a.BurstUs != b.BurstUs:
			return int(a.BurstUs - b.BurstUs)
		case (a.Rule == "") != (b.Rule == ""):
			return boolCmp(a.Rule != "", b.Rule != "")
		}
		return a.Order - b.Order
	})
	return idx
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	return 1
}

// why says why some of the arm's windows gave no figure that counts: each
// reason once, in the order first met, with its count ("2× refused: busy")
// where the windows are not all of it; "" where every window counted.
func (a Arm) why() string {
	var reasons []string
	count := map[string]int{}
	for _, w := range a.Windows {
		s := w.why()
		if s == "" {
			continue
		}
		if count[s] == 0 {
			reasons = append(reasons, s)
		}
		count[s]++
	}
	if len(reasons) == 1 && count[reasons[0]] == len(a.Windows) {
		return reasons[0]
	}
	for i, s := range reasons {
		reasons[i] = strconv.Itoa(count[s]) + "× " + s
	}
	return strings.Join(reasons, ", ")
}

// why is a window's refusal or shortfall in a word or two, by its reason
// (Window.Reason); a result written before reasons says the first clause
// of its refusal or shortfall.
func (w Window) why() string {
	head := func(s string) string { h, _, _ := strings.Cut(s, ":"); return h }
	switch w.Reason {
	case ReasonContended:
		return "refused: contended"
	case ReasonNoFigure:
		return "no response"
	case ReasonNoRequestSent:
		return "no request sent"
	case ReasonShortRate:
		return "short of the rate"
	case ReasonFailed:
		return "requests failed"
	}
	if w.Refused != "" {
		return "refused: " + head(w.Refused)
	}
	return head(w.Short)
}

// recommendationLine is the headline (Result.Headline), then what the
// recommended level and the level below it showed (Result.Shown), a line
// each.
func (r Result) recommendationLine() string {
	s := r.Headline()
	for _, sh := range r.Shown {
		s += "\n" + sh.Text
	}
	return s
}
