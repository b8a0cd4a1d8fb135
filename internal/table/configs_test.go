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

func TestConfigsColumnsAndCells(t *testing.T) {
	tb := Configs([]string{"cpus"}, []string{"mean_ms", "throttled_fraction"}, configRows(), &Notes{})
	assert.Equal(t, []Column{{"cpus", Right}, {"mean_ms", Right}, {"throttled_fraction", Right}, {"note", Left}}, tb.Columns)
	assert.Equal(t, [][]string{
		{"0.5", "20.0", "1.000", "few periods¹"},
		{"1", "10.0", "", ""},
		{"2", "", "", "skipped: invalid --burst \"30ms\": must not exceed the quota 20ms"},
		{"4", "5.0", "0.000", "few periods¹; busy machine²"},
	}, tb.Rows, "a skipped row has blank metrics and its reason as the note; a warning shared by rows is one footnote")
	assert.Equal(t, []string{"few periods: raise --iterations", "busy machine: measure on a quiet one"}, tb.Notes)
	assert.Equal(t, 2, tb.Style.Indent)
}

// For machines the note holds the warnings whole, and there are no
// footnotes.
func TestConfigsForMachines(t *testing.T) {
	tb := Configs([]string{"cpus"}, []string{"mean_ms", "throttled_fraction"}, configRows(), nil)
	assert.Equal(t, "few periods: raise --iterations; busy machine: measure on a quiet one", tb.Rows[3][3])
	assert.Empty(t, tb.Notes)
}

// The note is left-aligned: notes start in one column, and a row without a
// note ends at its last metric, with no padding after it.
func TestConfigsTextNoteLeftAligned(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Text(&b, Configs([]string{"cpus"}, []string{"mean_ms"}, []ConfigRow{
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
	require.NoError(t, Markdown(&b, Configs([]string{"cpus"}, []string{"mean_ms"}, []ConfigRow{{Params: []string{"1"}, Metrics: []string{"10.0"}}}, &Notes{})))
	assert.Equal(t, "| cpus | mean_ms | note |\n|---:|---:|:---|\n| 1 | 10.0 |  |\n", b.String())
}

func TestConfigsNoRows(t *testing.T) {
	tb := Configs(nil, []string{"mean_ms"}, nil, &Notes{})
	assert.Equal(t, []Column{{"mean_ms", Right}, {"note", Left}}, tb.Columns)
	assert.Empty(t, tb.Rows)
}

func TestNumber(t *testing.T) {
	assert.Equal(t, "0.33", Number(1.0/3, 2, true))
	assert.Equal(t, "0.3333333333333333", Number(1.0/3, 2, false), "machines get every digit")
	assert.Equal(t, "20.0", Number(20, 1, true))
	assert.Equal(t, "20", Number(20, 1, false))
}
