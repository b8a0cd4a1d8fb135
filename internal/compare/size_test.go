package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

func cpus(c float64) *float64 { return &c }

// sizeArm is an arm at cpus (nil: unlimited) with passes, fails and
// refused windows.
func sizeArm(c *float64, burstUs int64, rule, verdict string, passes, fails, refused int) SizeArm {
	a := SizeArm{CPUs: c, BurstUs: burstUs, Rule: rule, Verdict: verdict}
	add := func(n int, pass bool, why string) {
		for range n {
			a.Windows = append(a.Windows, struct {
				Pass    bool   `json:"pass"`
				Refused string `json:"refused"`
			}{pass, why})
		}
	}
	add(passes, true, "")
	add(fails, false, "")
	add(refused, false, "busy machine")
	return a
}

func sizeSide(name, slo string, rec *SizeSetting, arms ...SizeArm) SizeSide {
	return SizeSide{Name: name, SLO: slo, Loop: "open", Window: "2s", PeriodUs: 100_000, Recommendation: rec, Arms: arms}
}

// Levels are matched by CPUs and burst: the unlimited arm first, then by
// CPUs, burst; each side's pass rate is of its counted windows; the
// levels one side alone measured are named.
func TestCompareSizeMatchesLevels(t *testing.T) {
	old := sizeSide("a.json", "p99<=50ms", &SizeSetting{CPUs: cpus(0.4)},
		sizeArm(nil, 0, "", "pass", 6, 0, 1),
		sizeArm(cpus(0.6), 0, "", "pass", 6, 0, 0),
		sizeArm(cpus(0.4), 0, "", "pass", 5, 1, 0),
		sizeArm(cpus(0.4), 20_000, "", "pass", 6, 0, 0),
		sizeArm(cpus(0.3), 0, "", "fail", 0, 2, 0),
		sizeArm(cpus(0.27), 0, "vpa", "fail", 0, 2, 0))
	new := sizeSide("b.json", "p99<=50ms", &SizeSetting{CPUs: cpus(0.5)},
		sizeArm(nil, 0, "", "pass", 6, 0, 0),
		sizeArm(cpus(0.6), 0, "", "pass", 6, 0, 0),
		sizeArm(cpus(0.4+1e-12), 0, "", "fail", 2, 4, 0), // the same level, as JSON may round it
		sizeArm(cpus(0.5), 0, "", "pass", 6, 0, 0),
		sizeArm(cpus(0.3), 0, "sample", "undecided", 0, 0, 3))
	res := CompareSize(old, new)
	var got []string
	for _, l := range res.Levels {
		got = append(got, levelName(SizeArm{CPUs: l.CPUs, BurstUs: l.BurstUs, Rule: l.Rule})+": "+tallyText(l.Old)+" | "+tallyText(l.New))
	}
	assert.Equal(t, []string{
		"unlimited: pass 6/6 (100%) +1 refused | pass 6/6 (100%)",
		"0.3 CPUs (sample): fail 0/2 (0%) | undecided 0/0 +3 refused",
		"0.4 CPUs: pass 5/6 (83%) | fail 2/6 (33%)",
		"0.6 CPUs: pass 6/6 (100%) | pass 6/6 (100%)",
	}, got)
	assert.Equal(t, []string{"0.27 CPUs (vpa)", "0.4 CPUs burst 20ms"}, res.OnlyOld)
	assert.Equal(t, []string{"0.5 CPUs"}, res.OnlyNew)
	assert.InDelta(t, 0.1, res.RecommendationChange(), 1e-9)
	assert.True(t, math.IsNaN(res.Levels[1].New.Rate()), "nothing counted: no rate")
	assert.Empty(t, res.Warnings)

	var b bytes.Buffer
	require.NoError(t, WriteSize(&b, res, "text", table.View{Width: 80}))
	assert.Contains(t, b.String(), "recommendation: old 0.4 CPUs, new 0.5 CPUs: +0.1 CPUs\n")
	assert.Contains(t, b.String(), NoSizeTest[:40])
	assert.Regexp(t, `\ncpus +old +new\n`, b.String(), "no burst column: no level both measured has one")

	b.Reset()
	require.NoError(t, WriteSize(&b, res, "json", table.View{}))
	var j struct {
		SignificanceTest string `json:"significance_test"`
		Levels           []struct {
			CPUs *float64 `json:"cpus"`
			Old  struct {
				PassRate *float64 `json:"pass_rate"`
			} `json:"old"`
			New struct {
				PassRate *float64 `json:"pass_rate"`
			} `json:"new"`
		} `json:"levels"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &j))
	assert.Equal(t, "none", j.SignificanceTest)
	require.Len(t, j.Levels, 4)
	assert.Nil(t, j.Levels[0].CPUs)
	assert.Nil(t, j.Levels[1].New.PassRate)
	assert.InDelta(t, 5.0/6, *j.Levels[2].Old.PassRate, 1e-9)
}

// What the two sides asked differently is said; so is a search cut short,
// a side without a recommendation, and a burst where one was measured.
func TestCompareSizeSaysWhatDiffers(t *testing.T) {
	old := sizeSide("a.json", "p99<=50ms", nil, sizeArm(nil, 0, "", "undecided", 0, 0, 20))
	new := sizeSide("b.json", "p99<=20ms", &SizeSetting{CPUs: cpus(0.8), BurstUs: 10_000},
		sizeArm(nil, 0, "", "pass", 6, 0, 0), sizeArm(cpus(0.8), 10_000, "", "pass", 6, 0, 0))
	new.PeriodUs, new.Incomplete, new.Stopped = 50_000, true, "--budget 1m0s ran out"
	res := CompareSize(old, new)
	assert.Equal(t, []report.Warning{
		{Kind: report.KindQuestionsDiffer, Text: "the targets differ (old p99<=50ms, new p99<=20ms): each side answers its own question"},
		{Kind: report.KindQuestionsDiffer, Text: "the periods differ (old 100ms, new 50ms): each side answers its own question"},
		{Kind: report.KindSearchStopped, Text: "b.json stopped before its search ended (--budget 1m0s ran out): its recommendation is so far"},
	}, res.Warnings)
	assert.True(t, math.IsNaN(res.RecommendationChange()))
	assert.Equal(t, "recommendation: old none (not even the unlimited arm met p99<=50ms), new 0.8 CPUs burst 10ms (so far)", res.recommendationLine())
	assert.Equal(t, []string{"0.8 CPUs burst 10ms"}, res.OnlyNew)

	old.Recommendation = &SizeSetting{Unlimited: true}
	old.Arms = append(old.Arms, sizeArm(cpus(0.8), 10_000, "", "fail", 0, 6, 0))
	res = CompareSize(old, new)
	assert.Contains(t, res.recommendationLine(), "old no limit (no level met p99<=50ms)")
	var b bytes.Buffer
	require.NoError(t, WriteSize(&b, res, "markdown", table.View{}))
	assert.Contains(t, b.String(), "| cpus | burst | old | new |\n")
	assert.Contains(t, b.String(), "| 0.8 | 10ms | fail 0/6 (0%) | pass 6/6 (100%) |\n")
	assert.Contains(t, b.String(), "- warning: the targets differ")
}

// LoadSizeFile reads the contract's keys; a file it cannot read or parse
// is bad input naming the side.
func TestLoadSizeFile(t *testing.T) {
	s, err := LoadSizeFile("OLD", filepath.Join("..", "show", "testdata", "size.json"))
	require.NoError(t, err)
	assert.Equal(t, "p99<=50ms", s.SLO)
	assert.InDelta(t, 0.4, *s.Recommendation.CPUs, 1e-9)
	assert.Len(t, s.Arms, 6)

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"slo": "p99<=50ms", "arms": {}}`), 0o644))
	for path, want := range map[string]string{bad: `invalid NEW "` + bad + `": a broken size result`, filepath.Join(dir, "none.json"): "no such file"} {
		_, err := LoadSizeFile("NEW", path)
		var ce *badinput.Error
		require.ErrorAs(t, err, &ce)
		assert.Contains(t, err.Error(), want)
		assert.False(t, strings.Contains(err.Error(), "\n"))
	}
}
