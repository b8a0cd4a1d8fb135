package sizing

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
)

// arm is a level measured in the given order, its windows as given.
func arm(order int, cpus float64, rule string, verdict size.Verdict, ws ...Window) Arm {
	a := Arm{Order: order, Rule: rule, Verdict: verdict, Windows: ws}
	if cpus > 0 {
		a.CPUs, a.QuotaUs = ptr(cpus), ptr(quotaUs(cpus, 100*time.Millisecond))
	} else {
		a.Unlimited = true
	}
	for _, w := range ws {
		a.Count(w.Window)
	}
	return a
}

func pass(ms float64) Window { return Window{Window: size.Window{Pass: true, Figure: ms}} }
func fail(ms float64) Window { return Window{Window: size.Window{Figure: ms}} }

// refused and short are windows refused or short by reason, saying why;
// a reason "" is a result's from before reasons.
func refused(reason, why string) Window {
	return Window{Window: size.Window{Refused: why}, Reason: reason}
}
func short(reason, why string) Window {
	return Window{Window: size.Window{}, Short: why, Reason: reason, short: true}
}

// The table: the unlimited arm first, then by CPUs (a rule's limit at its
// CPUs, after the search's level at the same CPUs), # the order measured;
// a row whose windows gave no figure that counts says why.
func TestArmsTableOrderAndReasons(t *testing.T) {
	r := Result{SLO: "p99<=50ms", Loop: "open", Window: "2s", PeriodUs: 100_000, Confidence: 0.95, Arms: []Arm{
		arm(2, 0.6, "", size.Pass, pass(12), pass(13)),
		arm(1, 0, "", size.Pass, pass(11), refused(ReasonContended, RefusedContended)),
		arm(3, 0.3, "", size.Fail, short(ReasonShortRate, "achieved 80 of 100 requests/s offered, 20 dropped"), short(ReasonNoFigure, "no figure: nothing completed")),
		arm(4, 0.4, "", size.Undecided, refused(ReasonContended, RefusedContended), refused(ReasonContended, RefusedContended)),
		arm(6, 0.2, "vpa", size.Fail, refused("", "the server exited: exit status 1")),
		arm(5, 0.6, "sample", size.Pass, pass(12)),
		arm(7, 0.25, "", size.Fail, short(ReasonNoFigure, "no figure: nothing completed")),
		arm(8, 0.35, "", size.Fail, short(ReasonFailed, "3 of 40 requests failed (5xx), more than --max-failures 1% allows (0)"), fail(70)),
	}}
	for i := range r.Arms {
		r.Arms[i].summarize()
	}
	tab := ArmsTable(r, true)
	var order, cpus, figs []string
	for _, row := range tab.Rows {
		order, cpus, figs = append(order, row[0]), append(cpus, row[1]), append(figs, row[5])
	}
	assert.Equal(t, []string{"1", "6", "7", "3", "8", "4", "2", "5"}, order)
	assert.Equal(t, []string{"unlimited", "0.2 (vpa)", "0.25", "0.3", "0.35", "0.4", "0.6", "0.6 (sample)"}, cpus)
	assert.Equal(t, []string{
		"11 (1× refused: contended)",
		"- (refused: the server exited)",
		"- (no response)",
		"- (1× short of the rate, 1× no response)",
		"70 (1× requests failed)",
		"- (refused: contended)",
		"12.5",
		"12",
	}, figs)

	var b bytes.Buffer
	require.NoError(t, Write(&b, r, "text", 0))
	text := b.String()
	assert.Contains(t, text, "#  cpus")
	assert.Less(t, strings.Index(text, "unlimited"), strings.Index(text, "0.2 (vpa)"))
	assert.NotContains(t, text, "  -  ", "no bare -")

	// CSV: for machines, the numbers whole, the reason a column of its own.
	b.Reset()
	require.NoError(t, Write(&b, r, "csv", 0))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"#", "cpus", "quota", "burst", "windows", "p99_ms", "p99_ms_ci95_lo", "p99_ms_ci95_hi", "verdict", "confidence", "rule", "why"}, rows[0])
	assert.Equal(t, []string{"6", "0.2", "20ms", "0s", "0/1", "", "", "", "fail", "0", "vpa", "refused: the server exited"}, rows[2])

	// Markdown: the same table, the recommendation, the warnings.
	r.Warnings = []report.Warning{{Kind: report.KindSearchUnsure, Text: "something to know"}}
	b.Reset()
	require.NoError(t, Write(&b, r, "markdown", 0))
	assert.Contains(t, b.String(), "| # | cpus | quota | burst | windows | p99_ms | verdict | confidence |\n")
	assert.Contains(t, b.String(), "| 3 | 0.3 | 30ms | 0s | 0/2 | - (1× short of the rate, 1× no response) | fail | 0% |\n")
	assert.Contains(t, b.String(), "**recommendation:** none")
	assert.Contains(t, b.String(), "- warning: something to know\n")
}

// A result from before arms[].order: the arms' place in the file is the
// order they were measured in.
func TestArmsTableWithoutOrder(t *testing.T) {
	r := Result{SLO: "mean<=1.2x", Arms: []Arm{arm(0, 0, "", size.Pass, pass(10)), arm(0, 0.8, "", size.Pass, pass(11)), arm(0, 0.4, "", size.Fail, fail(30))}}
	tab := ArmsTable(r, true)
	assert.Equal(t, "mean_ms", tab.Columns[5].Name)
	assert.Equal(t, [][]string{{"1", "unlimited"}, {"3", "0.4"}, {"2", "0.8"}}, [][]string{tab.Rows[0][:2], tab.Rows[1][:2], tab.Rows[2][:2]})
}

// A window's reason in a word or two, by its reason; a window of a result
// from before reasons by the first clause of its words.
func TestWindowWhy(t *testing.T) {
	for _, c := range []struct {
		w    Window
		want string
	}{
		{refused(ReasonContended, RefusedContended), "refused: contended"},
		{refused("", "busy machine: 40% waited"), "refused: busy machine"},
		{refused("", "the server exited: signal: killed"), "refused: the server exited"},
		{short(ReasonNoFigure, "no figure: nothing completed"), "no response"},
		{short(ReasonNoRequestSent, "no request was sent"), "no request sent"},
		{short(ReasonFailed, "no request succeeded: 20 of 20 requests failed (5xx)"), "requests failed"},
		{short(ReasonFailed, "any words"), "requests failed"},
		{short(ReasonShortRate, "achieved 12 of 20 requests/s offered, 8 dropped"), "short of the rate"},
		{short("", "achieved 12 of 20 requests/s offered, 8 dropped"), "achieved 12 of 20 requests/s offered, 8 dropped"},
		{short("", "something new: details"), "something new"},
		{pass(10), ""},
	} {
		assert.Equal(t, c.want, c.w.why(), "%+v", c.w)
	}
}

// Chart draws the levels, not the unlimited arm, with the SLO's statistic.
func TestChart(t *testing.T) {
	r := Result{SLO: "p99<=50ms", BoundMs: ptr(50.0), Arms: []Arm{arm(1, 0, "", size.Pass, pass(10)), arm(2, 0.4, "", size.Fail, fail(70), refused(ReasonContended, RefusedContended), short(ReasonNoFigure, "no figure: nothing completed"))}}
	c := Chart(r)
	assert.Equal(t, "p99", c.Stat)
	assert.Equal(t, 50.0, c.BoundMs)
	require.Len(t, c.Arms, 1)
	assert.Equal(t, []float64{70}, c.Arms[0].Figures, "refused windows and those without a figure are not drawn")
	assert.True(t, r.HasLevels())
	r.Arms = r.Arms[:1]
	assert.False(t, r.HasLevels())
}

// A --serve server that exited ends the search in the arm measured last:
// that row says so.
func TestArmsTableCrashed(t *testing.T) {
	r := Result{SLO: "p99<=50ms", Incomplete: true, Stopped: "the server exited: exit status 3", ServerExited: true, Arms: []Arm{
		arm(1, 0, "", size.Pass, pass(10)), arm(3, 0.4, "", size.Undecided), arm(2, 0.6, "", size.Undecided, pass(10), refused(ReasonContended, RefusedContended))}}
	for i := range r.Arms {
		r.Arms[i].summarize()
	}
	tab := ArmsTable(r, true)
	assert.Equal(t, []string{"10", "- (crashed)", "10 (1× refused: contended)"}, []string{tab.Rows[0][5], tab.Rows[1][5], tab.Rows[2][5]})
	r.Arms[1], r.Arms[2].Order = arm(3, 0.4, "", size.Undecided, pass(12)), 3
	r.Arms[1].Order = 2
	r.Arms[1].summarize()
	tab = ArmsTable(r, true)
	assert.Equal(t, "10 (1× refused: contended, crashed)", tab.Rows[2][5])
	assert.Equal(t, "12", tab.Rows[1][5])
}
