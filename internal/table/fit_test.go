package table

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wide is a table of configurations as sweep and latency make them: a key
// that varies (burst), one that does not (cpus), a headline metric (p99),
// ranked metrics of which two are the same in every row that ran (rate,
// drops) and one is empty in every row (bursts), a skipped row, notes.
func wide() *Table {
	return Configs([]string{"burst", "cpus"},
		Ranked([]string{"rate", "drops", "mean_ms", "p99_ms", "p90_ms", "bursts", "util"}, []string{"p99_ms", "p90_ms", "mean_ms", "util"}, 1),
		[]ConfigRow{
			{Params: []string{"0", "1"}, Metrics: []string{"46.9", "0", "7.08", "21.87", "12.67", "", "0.521"}, Warnings: []string{"late dispatch: up to 12 ms"}},
			{Params: []string{"100ms", "1"}, Metrics: []string{"46.9", "0", "5.49", "9.44", "6.01", "", "0.571"}},
			{Params: []string{"200ms", "1"}, Skipped: "burst above the quota"},
		}, &Notes{})
}

func ids(t *Table) []string { return t.IDs() }

// textOf is tb's rows in text, without its notes.
func textOf(t *testing.T, tb *Table) string {
	t.Helper()
	var b bytes.Buffer
	rows := *tb
	rows.Notes = nil
	require.NoError(t, Text(&b, &rows))
	return b.String()
}

// maxLine is the widest line of s, in runes.
func maxLine(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// What is the same in every row goes first, saying its value (a metric's
// sameness is over the rows that ran: the skipped row's blanks do not make
// rate vary); a column empty in every row goes too; the key that varies,
// the headline and the note stay.
func TestFitDropsWhatIsTheSameFirst(t *testing.T) {
	f := Fit(wide(), View{Width: 200})
	assert.Equal(t, []string{"burst", "mean_ms", "p99_ms", "p90_ms", "util", "note"}, ids(f.Table))
	assert.Equal(t, []string{"cpus=1", "rate=46.9", "drops=0"}, f.Same)
	assert.Equal(t, []string{"bursts"}, f.Empty)
	assert.Empty(t, f.Cut)
	assert.Equal(t, []bool{false, false, true}, f.Skipped)
}

// Then the least important metric that is no headline, until the rows fit:
// util (rank 4) before mean_ms (rank 3) before p90_ms (rank 2); the
// headline never. The note shows its markers alone (compact) where that
// keeps more columns or makes the rows fit, its headlines otherwise.
//
// Widths here: indent 2, gaps 2, burst 5, mean_ms 7, p99_ms 6, p90_ms 6,
// util 5, the note 14 whole or 8 compact: 55 in all, 49 compact.
func TestFitCutsTheLeastImportantUntilTheRowsFit(t *testing.T) {
	for _, c := range []struct {
		width   int
		cols    []string
		cut     []string
		compact bool
	}{
		{55, []string{"burst", "mean_ms", "p99_ms", "p90_ms", "util", "note"}, nil, false},
		{54, []string{"burst", "mean_ms", "p99_ms", "p90_ms", "util", "note"}, nil, true},
		{49, []string{"burst", "mean_ms", "p99_ms", "p90_ms", "util", "note"}, nil, true},
		{48, []string{"burst", "mean_ms", "p99_ms", "p90_ms", "note"}, []string{"util"}, false},
		{47, []string{"burst", "mean_ms", "p99_ms", "p90_ms", "note"}, []string{"util"}, true},
		{39, []string{"burst", "p99_ms", "p90_ms", "note"}, []string{"mean_ms", "util"}, false},
		{38, []string{"burst", "p99_ms", "p90_ms", "note"}, []string{"mean_ms", "util"}, true},
		{31, []string{"burst", "p99_ms", "note"}, []string{"mean_ms", "p90_ms", "util"}, false},
		{25, []string{"burst", "p99_ms", "note"}, []string{"mean_ms", "p90_ms", "util"}, true},
		{5, []string{"burst", "p99_ms", "note"}, []string{"mean_ms", "p90_ms", "util"}, true},
	} {
		f := Fit(wide(), View{Width: c.width})
		assert.Equal(t, c.cols, ids(f.Table), "width %d", c.width)
		assert.Equal(t, c.cut, f.Cut, "width %d: in table order", c.width)
		note := map[bool]string{true: "¹", false: "late dispatch¹"}[c.compact]
		assert.Equal(t, note, f.Rows[0][len(f.Columns)-1], "width %d", c.width)
		assert.Equal(t, "skipped²", f.Rows[2][len(f.Columns)-1], "width %d: skipped either way", c.width)
		if c.width >= 25 {
			assert.LessOrEqual(t, maxLine(textOf(t, f.Table)), c.width, "width %d:\n%s", c.width, textOf(t, f.Table))
		}
	}
}

// Unranked metrics go before any ranked one, the rightmost first among
// equals.
func TestFitCutsUnrankedRightmostFirst(t *testing.T) {
	tb := &Table{Columns: Ranked([]string{"a", "b", "c", "d"}, []string{"a", "b"}, 0),
		Rows: [][]string{{"1111", "2222", "3333", "4444"}}}
	f := Fit(tb, View{Width: 16})
	assert.Equal(t, []string{"a", "b", "c"}, ids(f.Table))
	assert.Equal(t, []string{"d"}, f.Cut)
	f = Fit(tb, View{Width: 10})
	assert.Equal(t, []string{"a", "b"}, ids(f.Table))
	f = Fit(tb, View{Width: 4})
	assert.Equal(t, []string{"a"}, ids(f.Table), "b (rank 2) before a (rank 1)")
}

// A metric empty in every row that ran has nothing to show, headline or
// not; with one row too.
func TestFitEmptyHeadline(t *testing.T) {
	tb := Configs([]string{"k"}, Ranked([]string{"a", "b"}, []string{"a", "b"}, 2), []ConfigRow{
		{Params: []string{"1"}, Metrics: []string{"", "2"}},
		{Params: []string{"2"}, Skipped: "no"},
	}, &Notes{})
	f := Fit(tb, View{Width: 80})
	assert.Equal(t, []string{"k", "b", "note"}, ids(f.Table))
	assert.Equal(t, []string{"a"}, f.Empty)
	assert.Equal(t, "empty in every row: a; --columns all shows them\n", f.Header())
}

// One row has nothing the same in every row: every column may show, cut
// by importance only.
func TestFitOneRow(t *testing.T) {
	tb := Configs(nil, Ranked([]string{"rate", "p99_ms"}, []string{"p99_ms"}, 1),
		[]ConfigRow{{Metrics: []string{"46.9", "21.87"}}}, &Notes{})
	f := Fit(tb, View{Width: 80})
	assert.Equal(t, []string{"rate", "p99_ms"}, ids(f.Table), "no note column when no row has a note")
	assert.Empty(t, f.Same)
	assert.Equal(t, "", f.Header())
}

// The note's compact cells (its markers) replace its headlines when that
// keeps another column; the headlines stay when they cost none.
func TestFitCompactNotes(t *testing.T) {
	rows := func(warning string) *Table {
		return Configs([]string{"k"}, Ranked([]string{"a", "b"}, []string{"a", "b"}, 1), []ConfigRow{
			{Params: []string{"1"}, Metrics: []string{"10", "20"}, Warnings: []string{warning}},
			{Params: []string{"2"}, Metrics: []string{"11", "21"}},
		}, &Notes{})
	}
	// Indent 2, gaps 2, k 1, a 2, b 2, the note 21 whole or 4 compact:
	// 34 in all, 17 compact; without b, 30.
	f := Fit(rows("a long headline here: text"), View{Width: 34})
	assert.Equal(t, []string{"k", "a", "b", "note"}, ids(f.Table))
	assert.Equal(t, "a long headline here¹", f.Rows[0][3], "fits whole: the headline stays")

	f = Fit(rows("a long headline here: text"), View{Width: 30})
	assert.Equal(t, []string{"k", "a", "b", "note"}, ids(f.Table), "b kept, the note compact")
	assert.Equal(t, "¹", f.Rows[0][3])
	assert.Equal(t, "", f.Rows[1][3])
	assert.Equal(t, []string{"a long headline here: text"}, f.Notes, "the footnote holds the whole text")
	assert.Nil(t, f.Columns[3].Compact)
}

// Keys, headlines and notes stay whatever the width: a table whose
// headlines do not fit stays wider than the view.
func TestFitNeverCutsKeysHeadlinesNotes(t *testing.T) {
	f := Fit(wide(), View{Width: 1})
	assert.Equal(t, []string{"burst", "p99_ms", "note"}, ids(f.Table))
	assert.Greater(t, maxLine(textOf(t, f.Table)), 1)
}

// --columns all, or no width, shows the table whole.
func TestFitAllAndNoWidth(t *testing.T) {
	whole := ids(wide())
	assert.Equal(t, whole, ids(Fit(wide(), View{Columns: Columns{All: true}, Width: 20}).Table))
	f := Fit(wide(), View{})
	assert.Equal(t, whole, ids(f.Table))
	assert.Equal(t, "", f.Header(), "nothing left out")
}

// A list shows the keys that tell rows apart, the names in their order
// (a constant key when named), and the notes.
func TestFitNamed(t *testing.T) {
	f := Fit(wide(), View{Columns: Columns{Names: []string{"util", "p99_ms", "rate"}}, Width: 10})
	assert.Equal(t, []string{"burst", "util", "p99_ms", "rate", "note"}, ids(f.Table))
	assert.Equal(t, "", f.Header(), "the user chose: nothing to say")
	assert.Equal(t, "¹", f.Rows[0][4], "wider than the view: the note's markers alone")
	f = Fit(wide(), View{Columns: Columns{Names: []string{"util"}}, Width: 80})
	assert.Equal(t, "late dispatch¹", f.Rows[0][2], "the note whole where it fits")
	assert.Equal(t, []string{"burst", "cpus", "p99_ms", "note"}, ids(Pick(wide(), Columns{Names: []string{"p99_ms", "cpus"}})))
	assert.Equal(t, ids(wide()), ids(Pick(wide(), Columns{All: true})), "files are cut only by a list")
	assert.Equal(t, ids(wide()), ids(Pick(wide(), Columns{})))
}

// The header says the shared values, what is empty, what went to fit,
// and how to see it all, broken between items at the width.
func TestFitHeader(t *testing.T) {
	f := Fit(wide(), View{Width: 32})
	assert.Equal(t, ""+
		"same in every row: cpus=1,\n"+
		"  rate=46.9, drops=0; empty:\n"+
		"  bursts\n"+
		"left out to fit 32 columns:\n"+
		"  mean_ms, p90_ms, util;\n"+
		"  --columns all shows them\n", f.Header())
	f = Fit(wide(), View{Width: 200})
	assert.Equal(t, "same in every row: cpus=1, rate=46.9, drops=0; empty: bursts; --columns all shows them\n", f.Header())
	f.Same = nil
	assert.Equal(t, "empty in every row: bursts; --columns all shows them\n", f.Header())
	f.Empty, f.Cut = nil, []string{"util"}
	assert.Equal(t, "left out to fit 200 columns: util; --columns all shows them\n", f.Header())
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, "a head line that is long\n", wide(), View{Width: 40}))
	assert.Equal(t, ""+
		"a head line that is long\n"+
		"same in every row: cpus=1, rate=46.9,\n"+
		"  drops=0; empty: bursts\n"+
		"left out to fit 40 columns: mean_ms,\n"+
		"  util; --columns all shows them\n"+
		"\n"+
		"  burst  p99_ms  p90_ms  note\n"+
		"      0   21.87   12.67  late dispatch¹\n"+
		"  100ms    9.44    6.01\n"+
		"  200ms                  skipped²\n"+
		"\n"+
		"¹ late dispatch: up to 12 ms\n"+
		"² skipped: burst above the quota\n", b.String())

	b.Reset()
	tb := &Table{Columns: []Column{{Name: "a"}}, Rows: [][]string{{"1"}}}
	require.NoError(t, WriteText(&b, "", tb, View{Width: 80}))
	assert.Equal(t, "a\n1\n", b.String(), "nothing above: no blank line")
}

func TestWrap(t *testing.T) {
	assert.Equal(t, "one two\n  three\n  four\n", Wrap("one two three four\n", 9))
	assert.Equal(t, "short\nlines stay\n", Wrap("short\nlines stay\n", 10))
	assert.Equal(t, "a\n  verylongword\n  b", Wrap("a verylongword b", 5), "a word longer than the width stays whole")
	assert.Equal(t, "nospace-at-all", Wrap("nospace-at-all", 4))
	assert.Equal(t, "¹ µs µs\n  µs", Wrap("¹ µs µs µs", 7), "runes, not bytes")
	assert.Equal(t, "x y z", Wrap("x y z", 0), "no width: as it is")
}
