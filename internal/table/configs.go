package table

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The layout of the tables with one row per configuration: sweep's, and
// latency's (the open loop's and the one on instances).

// ConfigRow is one configuration's row: its swept values, its metrics, and
// what its note says.
type ConfigRow struct {
	Params   []string // the swept parameters' values, one per column of Configs' params
	Metrics  []string // one per metric column; nil when the configuration was skipped
	Warnings []string // the note of a row that ran (see Notes.Cell)
	Skipped  string   // why the configuration did not run: the note of a skipped row
}

// Configs lays rows out: a column per swept parameter (a Key), one per
// metric (metrics, from Ranked), and a note. A skipped row has blank
// metrics and "skipped: " and its reason as its note. For people (notes
// non-nil) the note is each warning's headline (and a skipped row's
// "skipped") marked with a footnote, the whole text once below the table,
// and a narrow terminal may show the markers alone; for machines (CSV,
// notes nil) the note is whole.
//
// The parameters and metrics are right-aligned: numbers, and values that
// read like them (0.5, 10ms). The note is left-aligned: it is text, read
// from its start, and a row without one ends at its last metric instead of
// in padding.
func Configs(params []string, metrics []Column, rows []ConfigRow, notes *Notes) *Table {
	t := &Table{Style: Style{Indent: 2}}
	for _, n := range params {
		t.Columns = append(t.Columns, Column{Name: n, Align: Right, Kind: Key})
	}
	for _, m := range metrics {
		m.Align, m.Kind = Right, Metric
		t.Columns = append(t.Columns, m)
	}
	note := Column{Name: "note", Align: Left, Kind: Note}
	for _, r := range rows {
		c := append([]string(nil), r.Params...)
		warnings, short := r.Warnings, ""
		if r.Metrics == nil {
			c = append(c, make([]string, len(metrics))...)
			warnings, short = []string{"skipped: " + r.Skipped}, "skipped"
		} else {
			c = append(c, r.Metrics...)
		}
		c = append(c, notes.Cell(warnings))
		t.Rows = append(t.Rows, c)
		t.Skipped = append(t.Skipped, r.Metrics == nil)
		if notes != nil {
			note.Compact = append(note.Compact, short+notes.Marks(warnings))
		}
	}
	t.Columns = append(t.Columns, note)
	if notes != nil {
		t.Notes = notes.Texts()
	}
	return t
}

// Ranked are the metric columns names (in their order in the table)
// marked by importance: importance names them most important first, its
// first headlines kept whatever the width (Fit); a name it leaves out
// ranks last. A name in importance that is not in names is a mistake of
// the caller's, and panics.
func Ranked(names, importance []string, headlines int) []Column {
	cols := make([]Column, len(names))
	for i, n := range names {
		cols[i] = Column{Name: n}
	}
	for r, n := range importance {
		i := slices.Index(names, n)
		if i < 0 {
			panic(fmt.Sprintf("table: ranked column %q is not among %s", n, strings.Join(names, ", ")))
		}
		cols[i].Rank, cols[i].Headline = r+1, r < headlines
	}
	return cols
}

// Number is v as a metric's cell: prec decimals for people, and for
// machines (CSV) the shortest decimal that reads back as v.
func Number(v float64, prec int, people bool) string {
	if !people {
		prec = -1
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// Sig is v to digits significant figures, never in exponent form, without
// trailing zeros: a number for people (35130 MB/s, where %.4g printed
// 3.513e+04; 0.0123, 2.5).
func Sig(v float64, digits int) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	dec := max(0, digits-1-int(math.Floor(math.Log10(math.Abs(v)))))
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
