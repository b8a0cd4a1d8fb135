package show

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/golden"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sizing"
	"github.com/throttlebench/throttlebench/internal/table"
)

// The size fixtures (testdata/README) are the engine's results over a fake
// runner: size.json a search that answers 0.4 CPUs, a window at two levels
// refused as contended; size-after.json one that answers 0.5, its lowest
// levels' windows short of the rate; size-busy.json one whose every window
// was refused, so that no level was searched.
var sizeFixtures = []string{"size.json", "size-after.json", "size-busy.json"}

// show's output of a size result is size's own (sizing.Write): text,
// and the arms table as CSV and markdown; goldens show what it looks like.
func TestShowSizeIsWhatSizePrinted(t *testing.T) {
	for _, f := range sizeFixtures {
		res, err := Read(filepath.Join("testdata", f))
		require.NoError(t, err, f)
		assert.Equal(t, "size", res.Kind(), "recognised from its content")
		assert.Equal(t, []string{"text", "json", "csv", "markdown", "gobench", "github-action-benchmark", "bmf"}, res.Formats())
		data, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		var r sizing.Result
		require.NoError(t, json.Unmarshal(data, &r))
		for _, format := range []string{"text", "csv", "markdown"} {
			v := table.View{Width: table.DefaultWidth}
			var got, want bytes.Buffer
			require.NoError(t, res.Write(&got, format, v))
			require.NoError(t, sizing.Write(&want, r, format, v.Width))
			assert.Equal(t, want.String(), got.String(), "%s --format %s", f, format)
			if f != "size-after.json" {
				golden.Check(t, strings.TrimSuffix(f, ".json")+"."+map[string]string{"text": "txt", "csv": "csv", "markdown": "md"}[format], got.String())
			}
		}
		assert.Equal(t, r.Warnings, warnings(res.Warnings()), f)
	}
}

func warnings(ws []Warning) []report.Warning {
	out := []report.Warning{}
	for _, w := range ws {
		out = append(out, w.Warning)
	}
	return out
}

// Its JSON holds every key and value of the file.
func TestShowSizeJSONIsTheFile(t *testing.T) {
	for _, f := range sizeFixtures {
		res, err := Read(filepath.Join("testdata", f))
		require.NoError(t, err)
		var got bytes.Buffer
		require.NoError(t, res.Write(&got, "json", table.View{}))
		data, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		var want, back any
		require.NoError(t, json.Unmarshal(data, &want))
		require.NoError(t, json.Unmarshal(got.Bytes(), &back))
		assert.Empty(t, missing("", want, back), f)
	}
}

// --plot draws size's chart; a result that measured no level has none,
// as size drew none: bad input, nothing written.
func TestShowSizePlot(t *testing.T) {
	dir := t.TempDir()
	res, err := Read(filepath.Join("testdata", "size.json"))
	require.NoError(t, err)
	svg := filepath.Join(dir, "size.svg")
	require.NoError(t, res.Plot(svg))
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<svg")

	res, err = Read(filepath.Join("testdata", "size-busy.json"))
	require.NoError(t, err)
	none := filepath.Join(dir, "busy.svg")
	err = res.Plot(none)
	var ce *badinput.Error
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "measured no level")
	assert.NoFileExists(t, none)
}

// A broken size result is one line saying what is wrong with it.
func TestShowSizeBroken(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "size.json"))
	require.NoError(t, err)
	for _, c := range []struct{ name, content, want string }{
		{"sizes.json", "[" + string(data) + "]", "is a broken size result: several results in one file"},
		{"size-v9.json", strings.Replace(string(data), `"schema_version": 1`, `"schema_version": 9`, 1), "is a broken size result: schema_version 9: this throttlebench reads version 1"},
		{"size-no-arms.json", `{"schema_version": 1, "slo": "p99<=50ms", "arms": []}`, "is a broken size result: no arms"},
		{"size-cut.json", string(data[:len(data)/2]), "is a broken size result"},
	} {
		_, err := Parse(c.name, []byte(c.content))
		var ce *badinput.Error
		require.ErrorAs(t, err, &ce, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.NotContains(t, err.Error(), "\n", c.name)
	}
}

// A size result without a recommendation has no figure for the formats
// CI tools read: show says why on stderr (LeftOut), and of one with a
// recommendation, or of another kind, nothing.
func TestShowSizeLeftOut(t *testing.T) {
	busy, err := Read(filepath.Join("testdata", "size-busy.json"))
	require.NoError(t, err)
	why := warnings(LeftOut(busy, render.Gobench))
	require.Len(t, why, 1)
	assert.Equal(t, report.KindNoBenchmark, why[0].Kind)
	assert.Contains(t, why[0].Text, "--format gobench holds no benchmark")
	assert.Empty(t, LeftOut(busy, "text"))
	answered, err := Read(filepath.Join("testdata", "size.json"))
	require.NoError(t, err)
	assert.Empty(t, LeftOut(answered, render.BMF))
	run, err := Read(filepath.Join("testdata", "run.json"))
	require.NoError(t, err)
	assert.Empty(t, LeftOut(run, render.BMF))
}
