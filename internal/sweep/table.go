package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Row is one configuration's outcome: a report, or the reason it was skipped.
type Row struct {
	Config  Config
	Report  *report.Report
	Skipped string
}

// CostCPUSeconds is the normalised cost of an iteration, as in the AWS
// Lambda study: the CPUs paid for (quota/period, or the CPUs available when
// unlimited) × the mean duration.
func CostCPUSeconds(r *report.Report) float64 {
	return r.Cgroup.EffectiveCPUs * r.Stats.MeanMs / 1000
}

var metricColumns = []string{"mean_ms", "p50_ms", "p99_ms", "cov", "throttled_fraction", "model_ratio", "cost_cpu_s"}

func header(rows []Row) []string {
	var h []string
	if len(rows) > 0 {
		for _, p := range rows[0].Config {
			h = append(h, p.Flag)
		}
	}
	return append(append(h, metricColumns...), "note")
}

// footnotes numbers the warnings of a table in the order rows refer to
// them, so that a table for people shows each warning's headline with a
// number in the note column and its full text once below the table.
type footnotes struct{ texts []string }

// note is a row's note cell: its warnings' headlines, each marked with the
// number of its footnote.
func (f *footnotes) note(warnings []string) string {
	var parts []string
	for _, w := range warnings {
		i := slices.Index(f.texts, w)
		if i < 0 {
			f.texts = append(f.texts, w)
			i = len(f.texts) - 1
		}
		head, _, _ := strings.Cut(w, ": ")
		parts = append(parts, head+superscript(i+1))
	}
	return strings.Join(parts, "; ")
}

func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, c := range strconv.Itoa(n) {
		b.WriteRune([]rune(digits)[c-'0'])
	}
	return b.String()
}

// cells renders one row; prec chooses how many decimals a person wants to
// read (tables) or -1 for full precision (CSV). Tables for people pass
// footnotes for the warnings; CSV has them in full (notes nil).
func cells(r Row, prec int, notes *footnotes) []string {
	var c []string
	for _, p := range r.Config {
		c = append(c, p.Value)
	}
	if r.Report == nil {
		for range metricColumns {
			c = append(c, "")
		}
		return append(c, "skipped: "+r.Skipped)
	}
	f := func(v float64, p int) string {
		if prec < 0 {
			p = -1
		}
		return strconv.FormatFloat(v, 'f', p, 64)
	}
	rep := r.Report
	frac := ""
	if rep.Throttling.ThrottledFraction != nil {
		frac = f(*rep.Throttling.ThrottledFraction, 3)
	}
	note := strings.Join(rep.Warnings, "; ")
	if notes != nil {
		note = notes.note(rep.Warnings)
	}
	return append(c,
		f(rep.Stats.MeanMs, 1), f(rep.Stats.P50Ms, 1), f(rep.Stats.P99Ms, 1), f(rep.Stats.CoV, 3),
		frac, f(rep.Model.Ratio, 2), f(CostCPUSeconds(rep), 4), note)
}

// WriteCSV writes a header and one line per row.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.Write(header(rows))
	for _, r := range rows {
		cw.Write(cells(r, -1, nil))
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes a GitHub-flavoured table.
func WriteMarkdown(w io.Writer, rows []Row) error {
	var b strings.Builder
	h := header(rows)
	fmt.Fprintf(&b, "| %s |\n", strings.Join(h, " | "))
	fmt.Fprintf(&b, "|%s\n", strings.Repeat("---:|", len(h)))
	var notes footnotes
	for _, r := range rows {
		c := cells(r, 1, &notes)
		for i := range c {
			c[i] = strings.ReplaceAll(c[i], "|", `\|`)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(c, " | "))
	}
	if len(notes.texts) > 0 {
		b.WriteString("\n")
		for i, t := range notes.texts {
			fmt.Fprintf(&b, "- %s %s\n", superscript(i+1), t)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes an aligned table for a terminal.
func WriteText(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(header(rows), "\t")+"\t")
	var notes footnotes
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(cells(r, 1, &notes), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	if len(notes.texts) > 0 {
		b.WriteString("\n")
	}
	for i, t := range notes.texts {
		fmt.Fprintf(&b, "%s %s\n", superscript(i+1), t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
