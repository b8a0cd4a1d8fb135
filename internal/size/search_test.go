package size

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

// grid40 is 0.05 to 2 CPUs by 0.05.
func grid40() []float64 {
	g := make([]float64, 40)
	for i := range g {
		g[i] = 0.05 * float64(i+1)
	}
	return g
}

// threshold is a noiseless plant: windows pass from level from up.
func threshold(from int) Measure {
	return func(_ context.Context, level int) (Window, error) {
		return Window{Pass: level >= from, Figure: float64(40 - level)}, nil
	}
}

// anyContains says whether a warning of ws of kind holds every part.
func anyContains(ws []report.Warning, kind string, parts ...string) bool {
	for _, w := range ws {
		all := w.Kind == kind
		for _, p := range parts {
			all = all && strings.Contains(w.Text, p)
		}
		if all {
			return true
		}
	}
	return false
}

func TestSearchFindsTheThreshold(t *testing.T) {
	s := Search{CPUs: grid40(), Test: DefaultSequential()}
	a, err := s.Run(context.Background(), threshold(13))
	require.NoError(t, err)
	assert.Equal(t, 13, a.Bracket.Pass)
	assert.Equal(t, 12, a.Bracket.Fail)
	assert.InDelta(t, 0.70, *a.Bracket.PassCPUs, 1e-12)
	assert.InDelta(t, 0.65, *a.Bracket.FailCPUs, 1e-12)
	assert.False(t, a.Incomplete)
	assert.Empty(t, a.Warnings)
	// Bisection: 19, 9, 14, 11, 12, 13; six windows a pass, two a fail.
	var levels []int
	for _, arm := range a.Arms {
		levels = append(levels, arm.Level)
		assert.Len(t, arm.Windows, map[Verdict]int{Pass: 6, Fail: 2}[arm.Verdict], "level %d", arm.Level)
		assert.GreaterOrEqual(t, arm.Confidence, 0.95)
	}
	assert.Equal(t, []int{19, 9, 14, 11, 12, 13}, levels)
	assert.Equal(t, 3*6+3*2, a.Windows)
	assert.Equal(t, Pass, a.Arm(13).Verdict)
	assert.Equal(t, Fail, a.Arm(12).Verdict)
	assert.Nil(t, a.Arm(0))

	// The keys issue 36 makes a contract, as the arms and bracket carry them.
	out, err := json.Marshal(a)
	require.NoError(t, err)
	var back struct {
		Arms []struct {
			CPUs       float64          `json:"cpus"`
			Verdict    string           `json:"verdict"`
			Confidence float64          `json:"confidence"`
			Windows    []map[string]any `json:"windows"`
		} `json:"arms"`
	}
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Contains(t, string(out), `"pass_cpus":0.7`)
	assert.Contains(t, string(out), `"fail_cpus":0.65`)
	require.Len(t, back.Arms, 6)
	assert.Equal(t, "pass", back.Arms[0].Verdict)
	assert.InDelta(t, 1, back.Arms[0].CPUs, 1e-12)
	assert.Len(t, back.Arms[0].Windows, 6)
	assert.Equal(t, true, back.Arms[0].Windows[0]["pass"])
}

func TestSearchEveryLevelPasses(t *testing.T) {
	s := Search{CPUs: grid40(), Test: DefaultSequential()}
	a, err := s.Run(context.Background(), threshold(0))
	require.NoError(t, err)
	assert.Equal(t, 0, a.Bracket.Pass)
	assert.Equal(t, -1, a.Bracket.Fail)
	assert.Nil(t, a.Bracket.FailCPUs)
	assert.True(t, anyContains(a.Warnings, report.KindBracketOpen, "every level passed", "0.05 CPUs"), "%q", a.Warnings)
}

func TestSearchNoLevelPasses(t *testing.T) {
	s := Search{CPUs: grid40(), Test: DefaultSequential()}
	a, err := s.Run(context.Background(), threshold(99))
	require.NoError(t, err)
	assert.Equal(t, -1, a.Bracket.Pass)
	assert.Equal(t, 39, a.Bracket.Fail)
	assert.Nil(t, a.Bracket.PassCPUs)
	assert.True(t, anyContains(a.Warnings, report.KindBracketOpen, "no level passed", "2 CPUs"), "%q", a.Warnings)
	// Bisection upwards: 19, 29, 34, 37, 38, 39, two windows each.
	assert.Equal(t, 12, a.Windows)
	out, err := json.Marshal(a.Bracket)
	require.NoError(t, err)
	assert.JSONEq(t, `{"pass_cpus": null, "fail_cpus": 2}`, string(out))
}

func TestSearchStopsOnItsBudget(t *testing.T) {
	s := Search{CPUs: grid40(), Test: DefaultSequential(), MaxWindows: 10}
	a, err := s.Run(context.Background(), threshold(13))
	require.NoError(t, err)
	assert.True(t, a.Incomplete)
	assert.Equal(t, 10, a.Windows)
	assert.Contains(t, a.Stopped, "budget of 10 windows")
	// 19 passed (6), 9 failed (2), 14 had two of its windows: the bracket
	// so far is (9, 19), and 14 is undecided.
	assert.Equal(t, 19, a.Bracket.Pass)
	assert.Equal(t, 9, a.Bracket.Fail)
	assert.Equal(t, Undecided, a.Arm(14).Verdict)
	assert.Len(t, a.Arm(14).Windows, 2)
	assert.True(t, anyContains(a.Warnings, report.KindSearchStopped, "stopped before its bracket closed", "budget"), "%q", a.Warnings)
}

func TestSearchStopsOnItsContext(t *testing.T) {
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	s := Search{CPUs: grid40(), Test: DefaultSequential()}
	a, err := s.Run(past, threshold(13))
	require.NoError(t, err)
	assert.True(t, a.Incomplete)
	assert.Equal(t, "the deadline passed", a.Stopped)
	assert.Zero(t, a.Windows)
	assert.Empty(t, a.Arms)
	assert.Equal(t, -1, a.Bracket.Pass)

	// A window cut short by a cancel is dropped, not an error.
	ctx, cancel2 := context.WithCancel(context.Background())
	n := 0
	a, err = s.Run(ctx, func(ctx context.Context, level int) (Window, error) {
		if n++; n == 8 {
			cancel2()
			return Window{}, ctx.Err()
		}
		return threshold(13)(ctx, level)
	})
	require.NoError(t, err)
	assert.True(t, a.Incomplete)
	assert.Equal(t, "it was interrupted", a.Stopped)
	assert.Equal(t, 7, a.Windows)
	assert.Equal(t, 19, a.Bracket.Pass)
	require.Len(t, a.Arms, 2)
	assert.Len(t, a.Arms[1].Windows, 1)
}

func TestSearchReturnsMeasureErrors(t *testing.T) {
	boom := errors.New("the server died")
	n := 0
	s := Search{CPUs: grid40(), Test: DefaultSequential()}
	a, err := s.Run(context.Background(), func(ctx context.Context, level int) (Window, error) {
		if n++; n == 8 {
			return Window{}, boom
		}
		return threshold(13)(ctx, level)
	})
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "window 2 at 0.5 CPUs")
	assert.Equal(t, 7, a.Windows)
	require.Len(t, a.Arms, 2)
	assert.Equal(t, 19, a.Bracket.Pass)
}

func TestRefusedWindowsCountNeither(t *testing.T) {
	n := 0
	s := Search{CPUs: []float64{0.5, 1}, Test: DefaultSequential()}
	a, err := s.Run(context.Background(), func(_ context.Context, level int) (Window, error) {
		if n++; n <= 3 {
			return Window{Refused: "the machine was busy", Figure: 1}, nil
		}
		return Window{Pass: level == 0}, nil
	})
	require.NoError(t, err)
	// Level 0 first (the middle of −1..2): three refused, then six passes.
	arm := a.Arm(0)
	require.NotNil(t, arm)
	assert.Equal(t, Pass, arm.Verdict)
	assert.Equal(t, 3, arm.Refused)
	assert.Equal(t, 6, arm.Passes)
	assert.Len(t, arm.Windows, 9)
	assert.Equal(t, 0, a.Bracket.Pass)
	assert.Contains(t, a.Warnings, report.Warning{Kind: report.KindWindowsRefused, Text: "0.5 CPUs: 3 windows refused: the machine was busy"})

	// Nothing but refusals: every level ends undecided at its cap, and
	// nothing passes.
	s.Test.LevelWindows = 5
	a, err = s.Run(context.Background(), func(context.Context, int) (Window, error) {
		return Window{Refused: "the achieved rate fell short of the offered one"}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, -1, a.Bracket.Pass)
	for _, arm := range a.Arms {
		assert.Equal(t, Undecided, arm.Verdict)
		assert.Zero(t, arm.Passes+arm.Fails)
	}
	assert.True(t, anyContains(a.Warnings, report.KindSearchUnsure, "undecided after 5 windows"), "%q", a.Warnings)
}

func TestTooFewWindowsForTheConfidence(t *testing.T) {
	test := DefaultSequential()
	test.LevelWindows = 5 // a pass needs 6 at 95%
	s := Search{CPUs: grid40(), Test: test}
	a, err := s.Run(context.Background(), threshold(0))
	require.NoError(t, err)
	assert.Equal(t, -1, a.Bracket.Pass)
	assert.Contains(t, a.Warnings, report.Warning{Kind: report.KindSearchUnsure, Text: "no level can pass: 5 windows per level are too few for confidence 0.95, which needs at least 6"})
}

func TestDriftFlagsALevel(t *testing.T) {
	// Alternating verdicts keep the level undecided up to its cap, while
	// its figures climb: the first third against the last.
	n := 0
	s := Search{CPUs: []float64{1}, Test: DefaultSequential()}
	a, err := s.Run(context.Background(), func(context.Context, int) (Window, error) {
		n++
		return Window{Pass: n%4 != 0, Figure: float64(n)}, nil
	})
	require.NoError(t, err)
	require.Len(t, a.Arms, 1)
	assert.Equal(t, Undecided, a.Arms[0].Verdict)
	assert.True(t, a.Arms[0].Drift)
	assert.True(t, anyContains(a.Warnings, report.KindSearchUnsure, "1 CPU: the windows drift"), "%q", a.Warnings)

	// The same verdicts with steady figures: no drift.
	n = 0
	a, err = s.Run(context.Background(), func(context.Context, int) (Window, error) {
		n++
		return Window{Pass: n%4 != 0, Figure: float64(n % 2)}, nil
	})
	require.NoError(t, err)
	assert.False(t, a.Arms[0].Drift)
}

func TestContradictions(t *testing.T) {
	arms := []Arm{
		{CPUs: 1, Verdict: Pass},
		{CPUs: 0.8, Verdict: Pass},
		{CPUs: 1.2, Verdict: Fail},
		{CPUs: 0.5, Verdict: Fail},
		{CPUs: 1.5, Verdict: Undecided},
	}
	assert.Equal(t, []report.Warning{
		{Kind: report.KindSearchUnsure, Text: "1.2 CPUs failed, above 1 CPU, 0.8 CPUs, which passed: more CPU did worse here, so the limits do not order as the search assumes"},
	}, Contradictions(arms))
	assert.Empty(t, Contradictions(arms[:2]))
}

func TestProgressBoundOnlyFalls(t *testing.T) {
	s := Search{CPUs: grid40(), Test: DefaultSequential()}
	assert.Equal(t, 6*20, s.AtMost())
	var used, bounds []int
	s.Progress = func(u, at int) { used, bounds = append(used, u), append(bounds, at) }
	a, err := s.Run(context.Background(), threshold(13))
	require.NoError(t, err)
	require.NotEmpty(t, bounds)
	prev := s.AtMost()
	for i, b := range bounds {
		assert.LessOrEqual(t, b, prev, "call %d", i)
		assert.GreaterOrEqual(t, b, used[i])
		prev = b
	}
	assert.Equal(t, a.Windows, bounds[len(bounds)-1])
	s.MaxWindows = 50
	assert.Equal(t, 50, s.AtMost())
}

func TestSearchCheck(t *testing.T) {
	for _, s := range []Search{
		{Test: DefaultSequential()},
		{CPUs: []float64{1, 1}, Test: DefaultSequential()},
		{CPUs: []float64{1, 0.5}, Test: DefaultSequential()},
		{CPUs: []float64{1}, Test: Sequential{}},
	} {
		_, err := s.Run(context.Background(), threshold(0))
		assert.Error(t, err, "%+v", s)
	}
}
