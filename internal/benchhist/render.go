package benchhist

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Formats are Write's: text for a terminal, markdown for a pull request or
// a CI job's summary.
var Formats = []string{"text", "markdown"}

// Write renders res: a line saying what was compared, one table (a row per
// benchmark and metric), the notes, the benchmarks not in the newest run,
// the warnings, and a last line counting what moved. module is cut from
// the packages' paths.
func Write(w io.Writer, res Result, module, format string) error {
	var b strings.Builder
	commit := res.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit == "" {
		commit = "no commit"
	}
	if res.Dirty {
		commit += ", dirty"
	}
	match := "the same " + matchWords(res.Options.Match)
	if res.Options.Runs > 0 {
		match += fmt.Sprintf(", the last %s of them", runsWord(res.Options.Runs))
	}
	fmt.Fprintf(&b, "newest run %s (%s) against the earlier runs with %s; moved: p < %v and |change| ≥ %v%%\n\n",
		orNone(res.Newest), commit, match, res.Options.Alpha, res.Options.ThresholdPct)

	t := &table.Table{Columns: []table.Column{
		{Name: "package"}, {Name: "benchmark"}, {Name: "metric"},
		{Name: "earlier", Align: table.Right}, {Name: "newest", Align: table.Right},
		{Name: "change", Align: table.Right}, {Name: "p", Align: table.Right}, {Name: "n", Align: table.Right},
		{Name: "verdict"},
	}}
	var notes table.Notes
	judged := 0
	for _, r := range res.Rows {
		if r.Judged {
			judged++
		}
		scale := benchunit.CommonScale(finite(r.Earlier.Median, r.Newest.Median), benchunit.ClassOf(r.Unit))
		t.Rows = append(t.Rows, []string{
			shortPkg(r.Pkg, module), fullName(r.Name, r.Procs), r.Unit,
			value(scale, r.Earlier), value(scale, r.Newest),
			pct(r.ChangePct), pValue(r.P), fmt.Sprintf("%d+%d", r.Earlier.N, r.Newest.N),
			verdict(r) + notes.Marks(r.Warnings),
		})
	}
	t.Notes = notes.Texts()
	if len(t.Rows) == 0 {
		b.WriteString("no benchmark in the newest run\n")
	} else {
		var err error
		if format == "markdown" {
			err = table.Markdown(&b, t)
		} else {
			err = table.Text(&b, t)
		}
		if err != nil {
			return err
		}
	}
	if len(res.Stale) > 0 {
		fmt.Fprintf(&b, "\nnot in the newest run, not judged (-all judges their own newest runs):\n")
		for _, s := range res.Stale {
			fmt.Fprintf(&b, "  %s %s, last run %s\n", shortPkg(s.Pkg, module), fullName(s.Name, s.Procs), s.Time)
		}
	}
	if len(res.Warnings) > 0 {
		b.WriteString("\n")
		for _, w := range res.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	fmt.Fprintf(&b, "\n%d of %s moved; %d judged, %d not\n", res.Moved(), words.N(len(res.Rows), "metric"), judged, len(res.Rows)-judged)
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// verdict is "moved" (with "worse" or "better" where benchfmt knows the
// unit's direction), "~" for no significant change, "?" when not judged.
func verdict(r Row) string {
	switch {
	case r.Moved && r.Better != 0 && (r.ChangePct > 0) == (r.Better > 0):
		return "moved, better"
	case r.Moved && r.Better != 0:
		return "moved, worse"
	case r.Moved:
		return "moved"
	case r.Judged:
		return "~"
	}
	return "?"
}

func shortPkg(pkg, module string) string {
	if pkg == module && module != "" {
		return "."
	}
	if r, ok := strings.CutPrefix(pkg, module+"/"); ok && module != "" {
		return r
	}
	return pkg
}

// fullName is the name as go test prints it, with its GOMAXPROCS suffix.
func fullName(name string, procs int) string {
	if procs > 1 {
		return name + "-" + strconv.Itoa(procs)
	}
	return name
}

func finite(vs ...float64) []float64 {
	var out []float64
	for _, v := range vs {
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		out = []float64{0}
	}
	return out
}

// value is a side's median in the unit as reported, scaled as benchstat
// scales (k, M, µ; Ki, Mi for bytes); "–" for no samples.
func value(s benchunit.Scaler, side Side) string {
	if side.N == 0 || math.IsNaN(side.Median) {
		return "–"
	}
	v := s.Format(side.Median)
	if side.Runs > 1 {
		v += fmt.Sprintf(" (%d runs)", side.Runs)
	}
	return v
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.Abs(v) < 0.005 {
		return "0.00%" // not -0.00%
	}
	return fmt.Sprintf("%+.2f%%", v)
}

func pValue(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}
