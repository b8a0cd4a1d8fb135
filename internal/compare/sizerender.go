package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// metNote says what a level's cells say.
const metNote = "old, new: the level's verdict, then the windows that met the target / the windows counted (a refused window is not)"

// WriteSize renders a comparison of two size results as text (its prose
// wrapped at v's width), markdown or json.
func WriteSize(w io.Writer, res SizeResult, format string, v table.View) error {
	var b strings.Builder
	switch format {
	case "text":
		head := sideLine("old", res.Old) + "\n" + sideLine("new", res.New) + "\n\n" + res.recommendationLine() + "\n"
		b.WriteString(table.Wrap(head, v.Width) + "\n")
		if err := table.Text(&b, sizeTable(res)); err != nil {
			return err
		}
		tail := "\n"
		for _, l := range res.onlyLines() {
			tail += l + "\n"
		}
		tail += metNote + "\n" + NoSizeTest + "\n"
		for _, s := range res.Warnings {
			tail += "warning: " + s.Text + "\n"
		}
		b.WriteString(table.Wrap(tail, v.Width))
	case "markdown":
		fmt.Fprintf(&b, "### throttlebench compare\n\nold: `%s` (%s) · new: `%s` (%s)\n\n", res.Old.Name, mdSide(res.Old), res.New.Name, mdSide(res.New))
		b.WriteString("**" + strings.Replace(res.recommendationLine(), ":", ":**", 1) + "\n\n")
		if err := table.Markdown(&b, sizeTable(res)); err != nil {
			return err
		}
		if only := res.onlyLines(); len(only) > 0 {
			b.WriteString("\n" + strings.Join(only, "<br>\n") + "\n")
		}
		b.WriteString("\n<sub>" + metNote + ".<br>" + NoSizeTest + ".</sub>\n")
		if len(res.Warnings) > 0 {
			b.WriteString("\n")
		}
		for _, s := range res.Warnings {
			b.WriteString("- warning: " + s.Text + "\n")
		}
	case "json":
		data, err := json.MarshalIndent(sizeJSON(res), "", "  ")
		if err != nil {
			return err
		}
		b.Write(append(data, '\n'))
	default:
		return fmt.Errorf("unknown format %q", format)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdSide is a side's target and windows, for markdown's header.
func mdSide(s SizeSide) string {
	return fmt.Sprintf("`%s`, %s loop, windows of %s, period %s, %d windows", s.SLO, s.Loop, s.Window, usText(s.PeriodUs), s.Windows)
}

// sizeTable is the levels both sides measured, one row each; the burst
// only where one was.
func sizeTable(res SizeResult) *table.Table {
	burst := slices.ContainsFunc(res.Levels, func(l SizeLevel) bool { return l.BurstUs > 0 })
	t := &table.Table{Columns: []table.Column{{Name: "cpus"}, {Name: "old"}, {Name: "new"}}}
	if burst {
		t.Columns = slices.Insert(t.Columns, 1, table.Column{Name: "burst", Align: table.Right})
	}
	for _, l := range res.Levels {
		cpus := "unlimited"
		if l.CPUs != nil {
			cpus = strings.TrimSuffix(cpusText(l.CPUs), " CPUs")
		}
		if l.Rule != "" {
			cpus += " (" + l.Rule + ")"
		}
		row := []string{cpus, tallyText(l.Old), tallyText(l.New)}
		if burst {
			row = slices.Insert(row, 1, usText(l.BurstUs))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

type sizeSideJSON struct {
	File           string       `json:"file"`
	SLO            string       `json:"slo"`
	Recommendation *SizeSetting `json:"recommendation"`
	Incomplete     bool         `json:"incomplete"`
}

type sizeTallyJSON struct {
	SizeTally
	PassRate *float64 `json:"pass_rate"`
}

type sizeLevelJSON struct {
	CPUs      *float64      `json:"cpus"`
	Unlimited bool          `json:"unlimited,omitempty"`
	BurstUs   int64         `json:"burst_us"`
	Rule      string        `json:"rule,omitempty"`
	Old       sizeTallyJSON `json:"old"`
	New       sizeTallyJSON `json:"new"`
}

type sizeResultJSON struct {
	Kind                 string           `json:"kind"`
	SignificanceTest     string           `json:"significance_test"`
	Old                  sizeSideJSON     `json:"old"`
	New                  sizeSideJSON     `json:"new"`
	RecommendationChange *float64         `json:"recommendation_change_cpus"`
	Levels               []sizeLevelJSON  `json:"levels"`
	OnlyOld              []string         `json:"only_old"`
	OnlyNew              []string         `json:"only_new"`
	Warnings             []report.Warning `json:"warnings"`
}

func sizeJSON(res SizeResult) sizeResultJSON {
	side := func(s SizeSide) sizeSideJSON { return sizeSideJSON{s.Name, s.SLO, s.Recommendation, s.Incomplete} }
	tally := func(t SizeTally) sizeTallyJSON { return sizeTallyJSON{t, num(t.Rate())} }
	out := sizeResultJSON{Kind: "size", SignificanceTest: "none", Old: side(res.Old), New: side(res.New), RecommendationChange: num(res.RecommendationChange()),
		Levels: []sizeLevelJSON{}, OnlyOld: nonNil(res.OnlyOld), OnlyNew: nonNil(res.OnlyNew), Warnings: nonNil(res.Warnings)}
	for _, l := range res.Levels {
		out.Levels = append(out.Levels, sizeLevelJSON{CPUs: l.CPUs, Unlimited: l.CPUs == nil, BurstUs: l.BurstUs, Rule: l.Rule, Old: tally(l.Old), New: tally(l.New)})
	}
	return out
}
