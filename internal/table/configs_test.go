package table

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func configRows() []ConfigRow {
	return []ConfigRow{
		{Params: []string{"0.5"}, Metrics: []string{"20.0", "1.000"}, Warnings: []string{"few periods: raise --iterations"}},
		{Params: []string{"1"}, Metrics: []string{"10.0", ""}},
		{Params: []string{"2"}, Skipped: "invalid --burst \"30ms\": must not exceed the quota 20ms"},
		{Params: []string{"4"}, Metrics: []string{"5.0", "0.000"}, Warnings: []string{"few periods: raise --iterations", "busy machine: measure on a quiet one"}},
	}
}

func metrics(names ...string) []Column { return Ranked(names, nil, 0) }

func TestConfigsColumnsAndCells(t *testing.T) {
	tb := Configs([]string{"cpus"}, Ranked([]string{"mean_ms", "throttled_fraction"}, []string{"throttled_fraction"}, 1), configRows(), &Notes{})
	compact := []string{"¹", "", "skipped²", "¹˒³"}
	assert.Equal(t, []Column{{Name: "cpus", Align: Right, Kind: Key}, {Name: "mean_ms", Align: Right},
		{Name: "throttled_fraction", Align: Right, Headline: true, Rank: 1}, {Name: "note", Align: Left, Kind: Note, Compact: compact}}, tb.Columns)
	assert.Equal(t, [][]string{
		{"0.5", "20.0", "1.000", "few periods¹"},
		{"1", "10.0", "", ""},
		{"2", "", "", "skipped²"},
		{"4", "5.0", "0.000", "few periods¹; busy machine³"},
	}, tb.Rows, "a skipped row has blank metrics and a footnote with its reason as the note; a warning shared by rows is one footnote")
	assert.Equal(t, []string{"few periods: raise --iterations", "skipped: invalid --burst \"30ms\": must not exceed the quota 20ms",
		"busy machine: measure on a quiet one"}, tb.Notes)
	assert.Equal(t, []bool{false, false, true, false}, tb.Skipped)
	assert.Equal(t, 2, tb.Style.Indent)
}

// For machines the note holds the warnings and why a row was skipped
// whole, and there are no footnotes.
func TestConfigsForMachines(t *testing.T) {
	tb := Configs([]string{"cpus"}, metrics("mean_ms", "throttled_fraction"), configRows(), nil)
	assert.Equal(t, "few periods: raise --iterations; busy machine: measure on a quiet one", tb.Rows[3][3])
	assert.Equal(t, "skipped: invalid --burst \"30ms\": must not exceed the quota 20ms", tb.Rows[2][3])
	assert.Nil(t, tb.Columns[3].Compact)
	assert.Empty(t, tb.Notes)
}

// Ranked marks the headlines and ranks the rest in the order of
// importance; a name it does not rank ranks last (0); a name it ranks that
// is no column is the caller's mistake.
func TestRanked(t *testing.T) {
	cols := Ranked([]string{"a", "b", "c", "d"}, []string{"c", "a", "d"}, 1)
	assert.Equal(t, []Column{{Name: "a", Rank: 2}, {Name: "b"}, {Name: "c", Rank: 1, Headline: true}, {Name: "d", Rank: 3}}, cols)
	assert.Panics(t, func() { Ranked([]string{"a"}, []string{"x"}, 0) })
}

// The note is left-aligned: notes start in one column, and a row without a
// note ends at its last metric, with no padding after it.
func TestConfigsTextNoteLeftAligned(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Text(&b, Configs([]string{"cpus"}, metrics("mean_ms"), []ConfigRow{
		{Params: []string{"0.5"}, Metrics: []string{"20.0"}, Warnings: []string{"few periods: raise --iterations"}},
		{Params: []string{"1"}, Metrics: []string{"10.0"}, Warnings: []string{"busy: measure on a quiet one"}},
		{Params: []string{"10"}, Metrics: []string{"1.0"}},
	}, &Notes{})))
	assert.Equal(t, ""+
		"  cpus  mean_ms  note\n"+
		"   0.5     20.0  few periods¹\n"+
		"     1     10.0  busy²\n"+
		"    10      1.0\n"+
		"\n"+
		"¹ few periods: raise --iterations\n"+
		"² busy: measure on a quiet one\n", b.String())
}

func TestConfigsMarkdownNoteLeftAligned(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Markdown(&b, Configs([]string{"cpus"}, metrics("mean_ms"), []ConfigRow{{Params: []string{"1"}, Metrics: []string{"10.0"}}}, &Notes{})))
	assert.Equal(t, "| cpus | mean_ms | note |\n|---:|---:|:---|\n| 1 | 10.0 |  |\n", b.String())
}

func TestConfigsNoRows(t *testing.T) {
	tb := Configs(nil, metrics("mean_ms"), nil, &Notes{})
	assert.Equal(t, []Column{{Name: "mean_ms", Align: Right}, {Name: "note", Align: Left, Kind: Note}}, tb.Columns)
	assert.Empty(t, tb.Rows)
}

func TestNumber(t *testing.T) {
	assert.Equal(t, "0.33", Number(1.0/3, 2, true))
	assert.Equal(t, "0.3333333333333333", Number(1.0/3, 2, false), "machines get every digit")
	assert.Equal(t, "20.0", Number(20, 1, true))
	assert.Equal(t, "20", Number(20, 1, false))
}

func TestSig(t *testing.T) {
	for v, want := range map[float64]string{35130.2: "35130", 3.5: "3.5", 0.012345: "0.01235", 1234.6: "1235", 2: "2", 0: "0", -0.5: "-0.5", 123456789: "123456789"} {
		assert.Equal(t, want, Sig(v, 4), "%v", v)
	}
}
