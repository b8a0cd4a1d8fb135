package table

import "strconv"

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

// Configs lays rows out: a column per swept parameter, one per metric, and
// a note. A skipped row has blank metrics and "skipped: " and its reason as
// its note. For people (notes non-nil) each warning is its headline marked
// with a footnote, the whole text once below the table; for machines (CSV,
// notes nil) the warnings are whole.
//
// The parameters and metrics are right-aligned: numbers, and values that
// read like them (0.5, 10ms). The note is left-aligned: it is text, read
// from its start, and a row without one ends at its last metric instead of
// in padding.
func Configs(params, metrics []string, rows []ConfigRow, notes *Notes) *Table {
	t := &Table{Style: Style{Indent: 2}}
	for _, n := range params {
		t.Columns = append(t.Columns, Column{Name: n, Align: Right})
	}
	for _, n := range metrics {
		t.Columns = append(t.Columns, Column{Name: n, Align: Right})
	}
	t.Columns = append(t.Columns, Column{Name: "note", Align: Left})
	for _, r := range rows {
		c := append([]string(nil), r.Params...)
		if r.Metrics == nil {
			c = append(c, make([]string, len(metrics))...)
			c = append(c, "skipped: "+r.Skipped)
		} else {
			c = append(c, r.Metrics...)
			c = append(c, notes.Cell(r.Warnings))
		}
		t.Rows = append(t.Rows, c)
	}
	if notes != nil {
		t.Notes = notes.Texts()
	}
	return t
}

// Number is v as a metric's cell: prec decimals for people, and for
// machines (CSV) the shortest decimal that reads back as v.
func Number(v float64, prec int, people bool) string {
	if !people {
		prec = -1
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
