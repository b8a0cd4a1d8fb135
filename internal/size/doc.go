// Package size is the decision core of `throttlebench size`: given a grid
// of CPU levels and a way to measure one window at a level, it finds the
// smallest level that meets the target, and says how sure it is. It is
// pure: it measures nothing itself (the caller's Measure does), links no
// cgroup machinery, and prints nothing; warnings are data (Answer.Warnings).
// Beside it: slo.go reads --slo into an SLO that judges one window's
// figure (absolute, or a factor of the unlimited arm's same statistic);
// grid.go is the quota grid (--cpus-min, --cpus-max, --step at --period)
// and its default range from the unlimited arm's usage; rules.go is what
// usage-based recommenders (VPA, krr, sample's 1% rule) would set from
// that usage, to measure beside the answer. Flag errors are badinput.Errors
// (exit 2). The search takes the grid as ascending CPUs.
//
// It is the core only: the size command that wires it to the runner (an
// unlimited arm, windows measured in slices) comes next (issue 36).
//
// # The unit of evidence is a window
//
// Under a quota the requests of one period are not independent (one
// throttled period stalls them all), so the search counts windows, not
// requests. Each window brings a verdict (Window.Pass: its pNN met the
// target) and its figure; a window may instead be refused (Window.Refused:
// the achieved rate fell short, the machine was busy, the program failed),
// and then it counts as neither.
//
// # What "a level passes with confidence c" means
//
// Let p be the probability that a window at a level meets the target, and
// q = Sequential.Share (default 1/2: the level's median window meets it).
// The level truly passes when p ≥ q. The search says it passes, with
// confidence c (--confidence, default 0.95), when its sequential test ends
// in Pass: a test built so that, at any level where p ≤ q, the chance that
// it ends in Pass is at most 1 − c, however many windows it took. It says
// the level fails when the test ends in Fail: at any level where p ≥
// q1 = Sequential.Clear (default 0.9), the chance of that is at most 1 − c.
// Between q and q1 either may come, or neither (Undecided, at the cap of
// Sequential.LevelWindows windows): deciding in a few windows costs that
// indifference, and it can only make the answer higher. The oracle test
// (oracle_test.go) takes its true threshold from this same definition.
//
// The test is Wald's SPRT on the window verdicts (sequential.go says why
// not a Clopper–Pearson bound after each window); at the defaults a level
// passes after 6 windows that all pass and fails after 2 that fail. Each
// arm also carries the verdict's exact binomial confidence, computed as if
// its windows had been fixed in advance, which a verdict must reach too.
//
// # Across levels: a noisy bisection
//
// More CPU does not make latency worse, so the search bisects the grid
// between the highest level known not to pass and the lowest known to
// pass; a level left undecided counts as not passing (the safe side). The
// answer is a Bracket: the smallest level that passed and the level below
// it, which did not, each with its arm (its windows). Every level passing,
// none passing, and a search stopped by its budget (Search.MaxWindows) or
// by ctx (a deadline, a cancel) are said in the answer, the last marked
// Incomplete with the bracket reached so far.
//
// A bisection never measures a level above one that passed, so it cannot
// see more CPU doing worse by itself; Contradictions finds it among any
// arms (the caller's usage-rule arms beside the search's) and the search
// reports it in its warnings.
//
// # Guards
//
// Refused windows (their reasons, counted), drift (a level's first third
// of windows against its last third, stats.UTest's Mann-Whitney U test,
// at 1 − c: Arm.Drift), and too few windows for the
// confidence asked (a cap below Sequential.MinWindows, or a level left
// undecided at its cap) each become a warning line; none changes a
// verdict except the refusal, which removes its window from the count.
//
// # Cost
//
// Search.AtMost bounds the windows before the search starts (the levels a
// bisection visits, each at its cap); Search.Progress is told a falling
// bound after each window, for the command's bar. Against a simulated
// plant (oracle_test.go), 1,000 searches of a 40-level grid use under a
// tenth of the windows of a 10-per-level sweep and return the true level
// or above in at least 95% of them.
package size
