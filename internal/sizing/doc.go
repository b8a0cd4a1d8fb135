// Package sizing is `throttlebench size` wired to the runner: its flags
// resolved (Flags.Resolve: bad input is one badinput.Error, exit 2, before
// anything is made) and the engine (Engine.Run) that measures the unlimited
// arm, derives the grid and the SLO's bound from it, and runs size.Search
// with one window per call, each in a fresh slice at the level's quota.
// The decisions are internal/size's; this package only measures windows and
// lays out the result (Result: JSON keys that are a contract, and text).
//
// Which loop: the open loop (latency's) when an open-loop parameter is given
// (--rate, --work, …), else the closed loop (run's: a built-in workload or a
// command after --); with --target URL --serve -- CMD, the open loop sent to
// a fresh server in each window's slice (--gomaxprocs in its environment,
// floor and ceil from the level's quota). A window is --window of the open
// loop's arrivals, or a run of --window iterations of the closed loop.
//
// The unlimited arm is always measured first (the test's fewest windows that
// can pass, refused ones replaced up to a level's cap) and reported: the
// SLO's relative bound is its median figure, and the default range and the
// usage rules come from its usage every 100 ms (the runner's sampler, the
// schedule's quiet tail idle), so the high end is all the CPUs when the
// period is shorter than that (size.DefaultRange says why). Only its
// windows measure the harness's floor, the same at every limit. Where the unlimited arm does
// not pass, no limit can: the search is skipped and the answer says so.
// With --burst the search runs once per burst, over the levels whose quota
// holds it; the recommendation is the smallest passing quota among them.
// After the search, each usage rule's limit (size.Rules of that usage) is
// measured as a level is, beside it (rules.go).
//
// A window is refused (size.Window.Refused: no verdict) when its result
// carries a busy-machine warning, or with --busy count counted and marked
// busy. An open-loop window that dropped a request
// or achieved under ShortRate of the offered rate fails whatever its
// percentile (Window.Short): below the CPU the work needs the queue grows, and
// the percentile of the requests that completed would hide those that did
// not; refusing it instead would spend a level's whole cap there. --budget is a deadline on the whole: the answer is then the
// bracket reached so far, marked incomplete. It prints nothing; the runner
// removes every slice on every path, Ctrl-C included.
package sizing
