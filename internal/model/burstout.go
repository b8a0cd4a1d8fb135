package model

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/throttlebench/throttlebench/internal/table"
)

// SimulateFormats are simulate's output formats.
var SimulateFormats = []string{"text", "json", "csv", "markdown"}

// WriteCells writes a simulation's cells in format. JSON is one object for
// a single cell asked for without lists, an array otherwise (list). The
// tables show the columns v chooses; text fits v's width (table.Fit).
func WriteCells(w io.Writer, cells []Cell, format string, list bool, v table.View) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if !list && len(cells) == 1 {
			return enc.Encode(cells[0])
		}
		return enc.Encode(cells)
	case "csv":
		return table.CSV(w, table.Pick(cellTable(cells, false), v.Columns))
	case "markdown":
		return table.Markdown(w, table.Pick(cellTable(cells, true), v.Columns))
	}
	head := ""
	if len(cells) > 0 {
		c := cells[0]
		var seconds float64
		for _, x := range cells {
			seconds += x.Seconds
		}
		var rate float64
		if seconds > 0 {
			var cp float64
			for _, x := range cells {
				cp += float64(x.Cgroups) * float64(x.Periods+x.Replicas*x.Warmup)
			}
			rate = cp / seconds
		}
		head = fmt.Sprintf("burst model: %s demand%s, %d periods per cell in %d replicas (+%d warm-up each), seed %d\n"+
			"E[WCET] and P(WCET=1) with 95%% intervals (Student's t over the replicas); WCET in periods; %s million cgroup-periods/s per core\n",
			c.Dist, distDetail(c), c.Periods, c.Replicas, c.Warmup, c.Seed, table.Sig(rate/1e6, 3))
	}
	return table.WriteText(w, head, cellTable(cells, true), v)
}

// cellKeys are the columns that say which cell a row is; the rest are
// metrics, ranked for a narrow terminal by importance: the expected WCET
// and the chance a period finishes within itself always shown, then the
// tail, the throttled share and the rest of the distribution. CSV ranks
// nothing, as it is never cut.
var (
	cellKeys       = []string{"cgroups", "util", "buffer"}
	cellImportance = []string{"e_wcet", "p_wcet_1", "wcet_p99", "throttled_share", "wcet_max", "e_wcet_periods", "wcet_p999", "wcet_p90"}
)

// CellColumns are the names --columns takes in format.
func CellColumns(format string) []string {
	if format == "csv" {
		return cellCSVColumns
	}
	return cellColumns
}

var (
	cellColumns    = []string{"cgroups", "util", "buffer", "e_wcet", "p_wcet_1", "e_wcet_periods", "wcet_p90", "wcet_p99", "wcet_p999", "wcet_max", "throttled_share"}
	cellCSVColumns = []string{"cgroups", "util", "buffer", "dist", "periods", "seed",
		"e_wcet", "e_wcet_lo", "e_wcet_hi", "e_wcet_periods", "e_wcet_periods_lo", "e_wcet_periods_hi",
		"p_wcet_1", "p_wcet_1_lo", "p_wcet_1_hi", "wcet_p90", "wcet_p99", "wcet_p999", "wcet_max",
		"throttled_share", "seconds", "cgroup_periods_per_s"}
)

func distDetail(c Cell) string {
	s := ""
	if c.Shape != nil {
		s += fmt.Sprintf(" (shape %g)", *c.Shape)
	}
	if c.Cap != nil {
		s += fmt.Sprintf(", capped at %g × quota", *c.Cap)
	}
	return s
}

// cellTable lays the cells out one per row. For people (human) the means
// carry their intervals as ± half-widths (the intervals are symmetric) and
// numbers are rounded; CSV has full precision and the bounds in columns.
func cellTable(cells []Cell, human bool) *table.Table {
	t := &table.Table{Style: table.Style{Indent: 2}}
	for _, k := range cellKeys {
		t.Columns = append(t.Columns, table.Column{Name: k, Align: table.Right, Kind: table.Key})
	}
	metrics := table.Ranked(cellColumns[len(cellKeys):], cellImportance, 2)
	if !human {
		metrics = table.Ranked(cellCSVColumns[len(cellKeys):], nil, 0)
	}
	for _, m := range metrics {
		m.Align = table.Right
		t.Columns = append(t.Columns, m)
	}
	full := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, c := range cells {
		buf := full(float64(c.Buffer))
		if math.IsInf(float64(c.Buffer), 1) {
			buf = "inf"
		}
		if !human {
			t.Rows = append(t.Rows, []string{strconv.Itoa(c.Cgroups), full(c.Util), buf, c.Dist, strconv.Itoa(c.Periods), strconv.FormatUint(c.Seed, 10),
				full(c.EWCET), full(c.EWCETCI[0]), full(c.EWCETCI[1]), full(c.EWCETPeriods), full(c.EWCETPeriodsCI[0]), full(c.EWCETPeriodsCI[1]),
				full(c.PWCET1), full(c.PWCET1CI[0]), full(c.PWCET1CI[1]), full(c.WCETP90), full(c.WCETP99), full(c.WCETP999), full(c.WCETMax),
				full(c.ThrottledShare), full(c.Seconds), full(c.CgroupPeriodsPerS)})
			continue
		}
		// Enough decimals for two significant digits of the half-width (4
		// at least, 8 at most): an interval printed as ± 0.0000 would say
		// there is none. Where the replicas agree exactly (b = 0) it is 0.
		pm := func(v float64, ci [2]float64) string {
			h := (ci[1] - ci[0]) / 2
			if h == 0 {
				return fmt.Sprintf("%.4f ± 0", v)
			}
			d := min(max(4, int(math.Ceil(-math.Log10(h)))+1), 8)
			return fmt.Sprintf("%.*f ± %.*f", d, v, d, h)
		}
		f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
		t.Rows = append(t.Rows, []string{strconv.Itoa(c.Cgroups), strconv.FormatFloat(c.Util, 'g', 4, 64), buf,
			pm(c.EWCET, c.EWCETCI), pm(c.PWCET1, c.PWCET1CI), f3(c.EWCETPeriods),
			f3(c.WCETP90), f3(c.WCETP99), f3(c.WCETP999), f3(c.WCETMax), strconv.FormatFloat(c.ThrottledShare, 'f', 4, 64)})
	}
	return t
}
