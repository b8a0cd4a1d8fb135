package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareWritesOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cmp.md")
	code, stdout, stderr := runCLI("compare", "--format", "markdown", "-o", path, fixture("base.jsonl"), fixture("regression.jsonl"))
	assert.Equal(t, exitRegression, code, "the verdict does not depend on where the table goes")
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "significant regression")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "| `period=10ms quota=5ms` |")
}

// Two size results (issue 46): the recommendations and each common level's
// pass rate and verdict, no test made, exit 0 whatever they say.
func TestCompareSizeResults(t *testing.T) {
	a, b := showFixture("size.json"), showFixture("size-after.json")
	for _, c := range []struct{ golden, format string }{{"size.txt", "text"}, {"size.md", "markdown"}, {"size.golden.json", "json"}} {
		code, stdout, stderr := runCLI("compare", "--format", c.format, a, b)
		assert.Equal(t, exitOK, code, stderr)
		assert.Empty(t, stderr, "the two fixtures ask the same")
		checkGolden(t, c.golden, stdout)
	}
	code, stdout, _ := runCLI("compare", a, b)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "recommendation: old 0.4 CPUs, new 0.5 CPUs: +0.1 CPUs")
	assert.Regexp(t, `\n0\.4 +pass 6/6 \(100%\) +fail 1/4 \(25%\)\n`, stdout)
	assert.Regexp(t, `\n0\.7 \(sample\) +pass 6/6 \(100%\) \+1 refused +pass 6/6 \(100%\) \+3 refused\n`, stdout)
	assert.Contains(t, stdout, "\nonly in new: 0.5 CPUs\n")
	assert.Contains(t, stdout, "no significance test is made for size results")
}

// A size result against another kind: one line saying what compare
// compares, exit 2; sweep --from says it reads run and sweep results.
func TestCompareSizeAgainstOthers(t *testing.T) {
	size := showFixture("size.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", size, fixture("base.jsonl")}, `compare compares run and sweep results with each other, or two size results: OLD "` + size + `" is a size result, NEW "testdata/compare/base.jsonl" a sweep result`},
		{[]string{"compare", fixture("few-old.json"), size}, `is a run result, NEW "` + size + `" a size result`},
		{[]string{"compare", showFixture("latency.json"), size}, "is a latency result, NEW"},
		{[]string{"compare", size, "testdata/compare/missing.json"}, `invalid NEW "testdata/compare/missing.json"`},
		{[]string{"sweep", "--from", size}, `invalid --from "` + size + `": a size result, and only run and sweep results are read here; throttlebench show ` + size + " shows it"},
	} {
		code, stdout, stderr := runCLI(c.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", c.args, stderr)
		assert.Empty(t, stdout, "%v", c.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %q", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
}
