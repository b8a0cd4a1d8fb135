package compare

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/badinput"
)

// A file that cannot be read, or holds no result, is bad input named by
// which side it is.
func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("BenchmarkX 1 2 ns/op\n"), 0o644))
	reps, err := LoadFile("OLD", "../../cmd/throttlebench/testdata/compare/base.jsonl")
	require.NoError(t, err)
	assert.Len(t, reps, 2)

	var e *badinput.Error
	_, err = LoadFile("NEW", filepath.Join(dir, "missing.json"))
	require.ErrorAs(t, err, &e)
	assert.Equal(t, `invalid NEW "`+filepath.Join(dir, "missing.json")+`": no such file or directory; want a result file written by throttlebench run or sweep`, err.Error())
	_, err = LoadFile("--from", bad)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "from", e.Param)
	assert.Contains(t, err.Error(), `invalid --from "`+bad+`": not a throttlebench result: line 1`)
}

// --fail-on: regressions fail; with change, improvements too; never,
// nothing. At most five are named.
func TestResultFailed(t *testing.T) {
	row := func(key string, v Verdict, pct float64) Row {
		return Row{Key: key, Verdict: v, ChangePct: pct, P: 0.001}
	}
	res := Result{Rows: []Row{row("a", Regression, 12), row("b", Improvement, -20), row("c", NoChange, 1)}}
	assert.EqualError(t, res.Failed(FailOnRegression), "significant regression in 1 of 3 configurations: a: wall +12.0% (p=0.001)")
	assert.EqualError(t, res.Failed(FailOnChange), "significant change in 2 of 3 configurations: a: wall +12.0% (p=0.001); b: wall -20.0% (p=0.001)")
	assert.NoError(t, res.Failed(FailOnNever))
	assert.NoError(t, Result{Rows: []Row{row("b", Improvement, -20)}}.Failed(FailOnRegression))

	var many Result
	for _, k := range []string{"1", "2", "3", "4", "5", "6", "7"} {
		many.Rows = append(many.Rows, row(k, Regression, 10))
	}
	assert.ErrorContains(t, many.Failed(FailOnRegression), "5: wall +10.0% (p=0.001); and 2 more")

	// A change of the code is named by its CPU time.
	code := Row{Key: "d", Verdict: Regression, Cause: CauseCode, ChangePct: 4, P: 0.2, CPU: &Change{Pct: 21, P: 0.0001}}
	assert.EqualError(t, Result{Rows: []Row{code}}.Failed(FailOnRegression),
		"significant regression in 1 of 1 configurations: d: CPU per iteration +21.0% (p<0.001)")
}
