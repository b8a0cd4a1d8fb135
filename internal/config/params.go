package config

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Kind says how a parameter's values are parsed and stepped in a sweep.
type Kind int

const (
	Float    Kind = iota // --cpus
	Duration             // --quota, --period, --burst
	Int                  // --workers, --cost
	Words                // --gomaxprocs: integers, or words
	Bool                 // --pin: a flag that needs no value
)

// Command is a set of the commands a parameter belongs to.
type Command uint8

const (
	Batch   Command = 1 << iota // run and sweep: the closed loop of batches
	Latency                     // latency: the open loop of requests
)

// Param is one parameter of a configuration.
type Param struct {
	Name    string // the flag, the sweep axis, the match key
	Kind    Kind
	Default string // "" = not given
	Help    string
	// For are the commands that take it; 0 means Batch alone. HelpLatency,
	// when set, is its help in latency, where it means something else.
	For         Command
	HelpLatency string
	Axis        bool // may be a list or a range (sweep, latency)
	// HelpList ends its help where it is a list (sweep, latency), after
	// "a list or range": run takes one value (issue 33).
	HelpList string
	// Hidden: a flag --help does not show (the command's argv, given
	// after --).
	Hidden bool
	// Limit marks a CFS limit or the cpuset: only for a slice that
	// throttlebench creates.
	Limit bool
	// Words are the literals it takes besides numbers (a sweep lists them
	// as single values, never as the ends of a range).
	Words []string
	// Share marks a parameter that sets the CPU share (quota/period): a
	// plot against the share does not label lines by it.
	Share bool
	// AxisRank orders a sweep's axes, outermost first: the CPU share varies
	// fastest, so a table reads down a share scan.
	AxisRank int
	// Key makes the parameter one of compare's keys, which match results
	// by configuration: its name in a result's JSON and in compare's,
	// which internal/compare reads back from a result by that name. "":
	// not a key (--cpus is the quota's other spelling; counts like
	// --iterations do not make two results different configurations).
	Key string
	// parse checks one value alone and stores it.
	parse func(c *Config, v string) error
}

// Params are every parameter, in the order they are shown (compare's keys)
// and resolved: the period before what depends on it, the burst after its
// quota (Resolve sees to that).
var Params = slices.Concat(batchParams, openLoopParams, instanceParams)

// batchParams are run's and sweep's, some shared with latency.
var batchParams = slices.Concat([]Param{
	{Name: "workload", Kind: Words, Default: "bcrypt", Help: "CPU-bound workload: " + strings.Join(decl.Names(), ", "),
		parse: func(c *Config, v string) (err error) {
			c.Workload, err = choice("workload", v, decl.Names())
			return
		},
		Key: "workload"},
}, workloadParams(), []Param{
	{Name: "batch", Kind: Int, Default: "50", Help: "operations (bcrypt hashes, spin units…) per worker per iteration",
		parse: func(c *Config, v string) (err error) { c.Batch, err = integer("batch", v, 1, 1_000_000); return },
		Key:   "batch"},
	{Name: "iterations", Kind: Int, Default: "5", Help: "measured iterations",
		parse: func(c *Config, v string) (err error) {
			c.Iterations, err = integer("iterations", v, 1, runspec.MaxIterations)
			return
		}},
	{Name: "warmup", Kind: Int, Default: "1", Help: "iterations run first and discarded",
		parse: func(c *Config, v string) (err error) { c.Warmup, err = integer("warmup", v, 0, 1_000_000); return }},
	{Name: "min-time", Kind: Duration, Default: "0s", Help: "after --iterations, keep measuring until the measured iterations span this long, up to 1h (0 = off)",
		parse: parseMinTime},
	{Name: "workers", Kind: Int, Default: "1", Axis: true, AxisRank: 2, Help: "worker threads, each running --batch operations per iteration",
		For: Batch | Latency, HelpLatency: "worker threads serving requests from the queue",
		parse: func(c *Config, v string) (err error) { c.Workers, err = integer("workers", v, 1, MaxCPUs); return },
		Key:   "workers"},
	{Name: "sleep", Kind: Duration, Default: "0s", Axis: true, AxisRank: 1,
		Help:  "CPU with waits: a slow worker sleeps this long after every --sleep-every operations, up to 1s (0 = no sleeps)",
		parse: parseSleep},
	{Name: "sleep-every", Kind: Int, Default: "1", Axis: true, AxisRank: 1, Help: "CPU with waits: operations between two sleeps of a slow worker",
		parse: func(c *Config, v string) (err error) {
			c.SleepEvery, err = integer("sleep-every", v, 1, 1_000_000)
			return
		}},
	{Name: "slow-workers", Kind: Words, Default: "all", Words: []string{"all"},
		Help:  "CPU with waits: how many workers (the first ones) sleep, or all; the rest run without sleeps",
		parse: parseSlowWorkers},
	{Name: "gomaxprocs", Kind: Words, Default: "workers", Axis: true, AxisRank: 3, Words: []string{"workers", "runtime", "floor", "ceil"}, For: Batch | Latency,
		Help:  "GOMAXPROCS of the workload (a command's, or --serve's server's, GOMAXPROCS environment variable): a number, workers (each worker can run in parallel), runtime (Go's cgroup-aware default; a command's environment as it is), floor (uber-go/automaxprocs: floor(quota/period), at least 1) or ceil (Go 1.25's default: ceil(quota/period), at least 2, at most the CPUs)",
		parse: parseGOMAXPROCS, Key: "gomaxprocs"},
	{Name: "period", For: Batch | Latency, Kind: Duration, Axis: true, AxisRank: 4, Limit: true, Help: "CFS period, 1ms–1s (default 100ms)", parse: parsePeriod,
		Key: "period_us"},
	{Name: "quota", For: Batch | Latency, Kind: Duration, Axis: true, AxisRank: 6, Limit: true, Share: true, Words: []string{"max"}, Help: "CFS quota per period, ≥ 1ms, or max (default max)", parse: parseQuota,
		Key: "quota_us"},
	{Name: "burst", For: Batch | Latency, Kind: Duration, Axis: true, AxisRank: 5, Limit: true, Help: "CFS burst, ≤ quota: unused quota that may be saved up", parse: parseBurst,
		Key: "burst_us"},
	{Name: "cpus", For: Batch | Latency, Kind: Float, Axis: true, AxisRank: 7, Limit: true, Share: true, Words: []string{"max"},
		Help: "CPUs allowed, like docker --cpus or a pod's limit (0.5 or 500m): quota = cpus × period; max: no quota (as --quota max)", HelpList: ", max an unlimited arm beside the limited ones", parse: parseCPUs},
	// Placement. The cpuset is no axis: its list format has commas.
	{Name: "cpuset", For: Batch | Latency, Kind: Words, Limit: true,
		Help:  "CPUs of the slice, in the kernel's list format such as 0-3,8 (the cpuset controller; default: all the parent has)",
		parse: parseCpuset, Key: "cpuset"},
	{Name: "pin", Kind: Bool, Default: "false",
		Help:  "pin worker i to the i-th CPU it may use (round again past the last), as fibtest pins each thread",
		parse: boolParam("pin", func(c *Config) *bool { return &c.Pin }),
		Key:   "pin"},
	{Name: "one-per-core", Kind: Bool, Default: "false",
		Help:  "run the workers on one SMT sibling of each core they may use: half the vCPUs of an SMT machine, none taken offline",
		parse: boolParam("one-per-core", func(c *Config) *bool { return &c.OnePerCore }),
		Key:   "one_per_core"},
})

// ParamsFor are the parameters cmd takes, in the order of Params.
func ParamsFor(cmd Command) []Param {
	var out []Param
	for _, p := range Params {
		if p.In(cmd) {
			out = append(out, p)
		}
	}
	return out
}

// In says whether cmd takes p.
func (p Param) In(cmd Command) bool {
	f := p.For
	if f == 0 {
		f = Batch
	}
	return f&cmd != 0
}

// Axes are the parameters a sweep may vary, outermost first.
func Axes() []Param { return AxesFor(Batch) }

// AxesFor are the parameters cmd takes as lists or ranges, outermost first.
func AxesFor(cmd Command) []Param {
	var out []Param
	for _, p := range ParamsFor(cmd) {
		if p.Axis {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b Param) int { return a.AxisRank - b.AxisRank })
	return out
}

// workloadParams are the Params of every workload's own parameters, as
// each declares them (default, range or words, help), in the registry's
// order; each is an axis. One is a compare key of its own where the
// workload says so (bcrypt's cost); the others are in the workload's key
// (internal/compare reads both).
func workloadParams() []Param {
	var out []Param
	for _, spec := range decl.Specs() {
		for _, wp := range spec.Params {
			p := Param{Name: wp.Name, Kind: Int, Default: wp.DefaultText(), Axis: wp.Axis(), AxisRank: 1, Help: wp.Help, Hidden: wp.Hidden,
				parse: func(c *Config, v string) error {
					var err error
					switch {
					case wp.Kind != decl.Number:
						if _, perr := wp.Parse(v); perr != nil {
							err = badinput.Errorf(wp.Name, "invalid --%s: %v", wp.Name, perr)
						}
					case wp.Words != nil:
						v, err = choice(wp.Name, v, wp.Words)
					default:
						var n int
						n, err = integer(wp.Name, v, wp.Min, wp.Max)
						v = strconv.Itoa(n)
					}
					if err == nil {
						if c.args == nil {
							c.args = map[string]string{}
						}
						c.args[wp.Name] = v
					}
					return err
				}}
			switch {
			case wp.Kind == decl.Flag:
				p.Kind = Bool
			case wp.Kind != decl.Number:
				p.Kind, p.Default = Words, "" // text: nothing to parse when not given
			case wp.Words != nil:
				p.Kind, p.Words = Words, wp.Words
			}
			if wp.OwnKey {
				p.Key = wp.Key()
			}
			out = append(out, p)
		}
	}
	return out
}

// Lookup returns the parameter called name.
func Lookup(name string) (Param, bool) {
	i := slices.IndexFunc(Params, func(p Param) bool { return p.Name == name })
	if i < 0 {
		return Param{}, false
	}
	return Params[i], true
}

// Check checks one value of a parameter on its own, as a sweep does for
// every value of an axis before any configuration runs. The CPU share is
// checked at the longest period, so that only the value itself counts.
func (p Param) Check(v string) error {
	c := Config{Limits: bandwidth.Limits{Period: MaxPeriod, Quota: bandwidth.Unlimited}, Workers: MaxCPUs}
	if p.Name == "burst" {
		c.Limits.Quota = time.Duration(math.MaxInt64) // the burst alone; its quota is checked with it
	}
	return p.parse(&c, v)
}
