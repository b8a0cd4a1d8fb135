package table

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() *Table {
	return &Table{
		Columns: []Column{{Name: "config"}, {Name: "time", Align: Right}, {Name: "note"}},
		Rows: [][]string{
			{"cpus=0.5", "45.10ms ± 2%", "short¹"},
			{"cpus=1", "9.0ms", ""},
		},
		Notes: []string{"short: raise --batch"},
	}
}

func render(t *testing.T, f func(*bytes.Buffer, *Table) error, tb *Table) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, f(&b, tb))
	return b.String()
}

func TestTextAlignsByRunesAndTrimsTrailingPadding(t *testing.T) {
	out := render(t, func(b *bytes.Buffer, tb *Table) error { return Text(b, tb) }, sample())
	assert.Equal(t, ""+
		"config            time  note\n"+
		"cpus=0.5  45.10ms ± 2%  short¹\n"+
		"cpus=1           9.0ms\n"+
		"\n"+
		"¹ short: raise --batch\n", out)
}

func TestTextIndentGapAndRightAlignedLastColumn(t *testing.T) {
	tb := &Table{
		Columns: []Column{{Name: "a", Align: Right}, {Name: "bb", Align: Right}},
		Rows:    [][]string{{"100", ""}},
		Style:   Style{Indent: 1, Gap: 3},
	}
	out := render(t, func(b *bytes.Buffer, tb *Table) error { return Text(b, tb) }, tb)
	// A right-aligned column pads before its cell, empty or not: the
	// padding is its alignment, so it stays.
	assert.Equal(t, "   a   bb\n 100     \n", out)
}

func TestMarkdownEscapesWhatBreaksARow(t *testing.T) {
	tb := sample()
	tb.Rows[1][2] = "a | b\nc\r\nd"
	tb.Style.Dashes = 2
	out := render(t, func(b *bytes.Buffer, tb *Table) error { return Markdown(b, tb) }, tb)
	assert.Equal(t, ""+
		"| config | time | note |\n"+
		"|:--|--:|:--|\n"+
		"| cpus=0.5 | 45.10ms ± 2% | short¹ |\n"+
		"| cpus=1 | 9.0ms | a \\| b<br>c<br>d |\n"+
		"\n"+
		"- ¹ short: raise --batch\n", out)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[:4] {
		assert.Equal(t, 4, strings.Count(l, "|")-strings.Count(l, `\|`), "three cells: %s", l)
	}
}

func TestMarkdownDefaultRule(t *testing.T) {
	tb := &Table{Columns: []Column{{Name: "a", Align: Right}, {Name: "b"}}}
	out := render(t, func(b *bytes.Buffer, tb *Table) error { return Markdown(b, tb) }, tb)
	assert.Equal(t, "| a | b |\n|---:|:---|\n", out)
}

func TestCSVQuotesAndLeavesNotesOut(t *testing.T) {
	tb := sample()
	tb.Rows[1][2] = "skipped: \"30ms\", too big\nreally"
	out := render(t, func(b *bytes.Buffer, tb *Table) error { return CSV(b, tb) }, tb)
	assert.NotContains(t, out, "raise --batch")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, [][]string{
		{"config", "time", "note"},
		{"cpus=0.5", "45.10ms ± 2%", "short¹"},
		{"cpus=1", "9.0ms", "skipped: \"30ms\", too big\nreally"},
	}, recs)
}

func TestWriteDispatches(t *testing.T) {
	for format, want := range map[string]string{"text": "a\n1\n", "markdown": "| a |\n|:---|\n| 1 |\n", "csv": "a\n1\n"} {
		var b bytes.Buffer
		require.NoError(t, Write(&b, &Table{Columns: []Column{{Name: "a"}}, Rows: [][]string{{"1"}}}, format))
		assert.Equal(t, want, b.String(), format)
	}
	assert.ErrorContains(t, Write(&bytes.Buffer{}, &Table{}, "yaml"), `unknown format "yaml"`)
}

func TestNotesNumberInOrderOfFirstReference(t *testing.T) {
	var n Notes
	assert.Equal(t, "¹", n.Ref("b"))
	assert.Equal(t, "²", n.Ref("a"))
	assert.Equal(t, "¹", n.Ref("b"), "the same message, the same number")
	assert.Equal(t, []string{"b", "a"}, n.Texts())
	assert.Equal(t, "¹²", Superscript(12))
	assert.Equal(t, "¹ b\n² a\n", TextNotes(n.Texts()))
	assert.Equal(t, "- ¹ b\n- ² a\n", MarkdownNotes(n.Texts()))
}

func TestNotesCell(t *testing.T) {
	ws := []string{"few periods: the run spans 3 periods", "busy machine: 0.4 CPUs"}
	var machine *Notes
	assert.Equal(t, "few periods: the run spans 3 periods; busy machine: 0.4 CPUs", machine.Cell(ws), "whole for machines")
	n := &Notes{}
	assert.Equal(t, "few periods¹; busy machine²", n.Cell(ws))
	assert.Equal(t, "busy machine²", n.Cell(ws[1:]), "a shared warning keeps its number")
	assert.Equal(t, ws, n.Texts())
	assert.Empty(t, n.Cell(nil))
}
