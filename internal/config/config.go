package config

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Kernel limits on CFS bandwidth settings (Documentation/scheduler/sched-bwc.rst).
const (
	MinPeriod = time.Millisecond
	MaxPeriod = time.Second
	MinQuota  = time.Millisecond
)

// Our own bounds: far beyond any machine we run on, small enough that no
// product or conversion overflows (a quota of 1e308 CPUs once came out as 0s).
const (
	MaxCPUs    = 1024 // --cpus, --workers, --gomaxprocs; the quota at most MaxCPUs × period
	MaxMinTime = time.Hour
)

// MaxValues bounds a list of values, a sweep's axis and size's grid of
// quotas alike: a typo in a step cannot start a million runs.
const MaxValues = 1000

// DefaultPeriod is the kernel's and Docker's default CFS period.
const DefaultPeriod = 100 * time.Millisecond

// Config is one configuration of a run.
type Config struct {
	Workload string
	// Params are the chosen workload's own values (decl.Spec: bcrypt's
	// cost, memtouch's buffer_bytes, memory and touch), as its results
	// hold them; args are every workload's flags as given, until Resolve
	// turns the chosen one's into Params.
	Params report.Params
	args   map[string]string
	// CPU with waits: the first SlowWorkers workers sleep Sleep after
	// every SleepEvery operations; Sleep 0 = none.
	Sleep       time.Duration
	SleepEvery  int
	SlowWorkers int
	Batch       int // operations per worker per iteration
	Iterations  int // measured iterations (the least, with MinTime)
	Warmup      int
	MinTime     time.Duration
	Workers     int
	// GOMAXPROCS is the policy as given: a number, "workers" or "runtime".
	GOMAXPROCS string
	// Limits are the CFS limits to create a slice with; LimitsSet says the
	// user gave any of them (or a cpuset).
	Limits    bandwidth.Limits
	LimitsSet bool
	// Placement: Cpuset the CPUs of a created slice (nil: none asked);
	// Pin and OnePerCore the workers' (see runspec.ClosedLoop).
	Cpuset     []int
	Pin        bool
	OnePerCore bool
	// The open loop's (latency): see runspec.OpenLoop.
	Rate     float64
	Arrivals string
	On, Off  time.Duration
	Work     time.Duration
	Wait     time.Duration
	Queue    int
	Duration time.Duration
	Seed     uint64
	// Count is --arrivals once's number of requests.
	Count int
	// The instances' (latency --instances), as given: InstancesPolicy ""
	// means none. Instances is what they resolve to (resolveInstances).
	InstancesPolicy string
	Concurrency     int
	Init            time.Duration
	InitMemory      int64
	KeepAlive       time.Duration
	BillGranularity time.Duration
	Instances       *runspec.Instances
}

// GOMAXPROCSValue is the GOMAXPROCS to set: a number, the workers, or 0 for
// the runtime's own cgroup-aware default.
func (c Config) GOMAXPROCSValue() int {
	switch c.GOMAXPROCS {
	case "workers":
		return c.Workers
	case "runtime", runspec.RuleFloor, runspec.RuleCeil:
		return 0 // floor and ceil: computed once the cgroup's quota is known
	}
	n, _ := strconv.Atoi(c.GOMAXPROCS)
	return n
}

// gomaxprocsRule is the rule bench computes from the quota, or "".
func (c Config) gomaxprocsRule() string {
	if c.GOMAXPROCS == runspec.RuleFloor || c.GOMAXPROCS == runspec.RuleCeil {
		return c.GOMAXPROCS
	}
	return ""
}

// ClosedLoop is the closed-loop driver's configuration (run, sweep), as
// OpenLoop is latency's.
func (c Config) ClosedLoop() runspec.ClosedLoop {
	return runspec.ClosedLoop{Workload: c.Workload, Params: c.Params,
		Sleep: c.Sleep, SleepEvery: c.SleepEvery, SlowWorkers: c.SlowWorkers, Batch: c.Batch, Iterations: c.Iterations,
		Warmup: c.Warmup, Workers: c.Workers, GOMAXPROCS: c.GOMAXPROCSValue(), MinTime: c.MinTime,
		Pin: c.Pin, OnePerCore: c.OnePerCore, GOMAXPROCSRule: c.gomaxprocsRule()}
}

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

// parseCpuset reads a CPU list; which CPUs exist here is for the command
// to check (it touches the system), before anything is created.
func parseCpuset(c *Config, v string) error {
	cpus, err := cpulist.Parse(v)
	if err != nil || len(cpus) == 0 {
		return badinput.Errorf("cpuset", "invalid --cpuset %q: want CPU numbers 0–%d in the kernel's list format, such as 0-3,8", v, cpulist.MaxCPU)
	}
	c.Cpuset = cpus
	return nil
}

func boolParam(name string, field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return badinput.Errorf(name, "invalid --%s %q: want true or false", name, v)
		}
		*field(c) = b
		return nil
	}
}

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

// Resolve is ResolveFor(Batch, values): run's and sweep's configuration.
func Resolve(values map[string]string) (Config, error) { return ResolveFor(Batch, values) }

// ResolveFor turns the given values (by parameter name; a missing one takes
// its default) into cmd's Config, checking every value and how they
// combine. A value of a parameter cmd does not take is refused.
func ResolveFor(cmd Command, values map[string]string) (Config, error) {
	c := Config{Limits: bandwidth.Limits{Period: DefaultPeriod, Quota: bandwidth.Unlimited}}
	_, hasCPUs := values["cpus"]
	_, hasQuota := values["quota"]
	if hasCPUs && hasQuota {
		return c, badinput.Errorf("cpus", "--cpus %q conflicts with --quota %q: give one of them (quota = cpus × period)", values["cpus"], values["quota"])
	}
	for name := range values {
		if p, ok := Lookup(name); !ok || !p.In(cmd) {
			return c, badinput.Errorf(name, "unknown parameter --%s", name)
		}
	}
	if err := CheckUnits(values); err != nil {
		return c, err
	}
	// burst depends on the quota: resolved after it, whatever the order.
	order := ParamsFor(cmd)
	slices.SortStableFunc(order, func(a, b Param) int {
		return btoi(a.Name == "burst") - btoi(b.Name == "burst")
	})
	for _, p := range order {
		v, ok := values[p.Name]
		if !ok {
			if p.Default == "" {
				continue
			}
			v = p.Default
		}
		if p.Limit {
			c.LimitsSet = true
		}
		if err := p.parse(&c, v); err != nil {
			return c, err
		}
	}
	if cmd == Latency {
		if err := resolveInstances(&c, values); err != nil {
			return c, err
		}
		return c, checkOpenLoop(c, values)
	}
	keepOwn(&c)
	return c, checkWorkload(&c, values)
}

// checkWorkload turns the chosen workload's flags into its Params, and
// refuses what its values cannot be with the batch (memtouch's reuse
// keeps a buffer per operation of it, at most 1 GiB): a sweep skips it, as
// it skips other combinations that cannot be.
func checkWorkload(c *Config, given map[string]string) error {
	spec, err := decl.Lookup(c.Workload)
	if err != nil {
		return badinput.Errorf("workload", "invalid --workload %q: want one of %s", c.Workload, strings.Join(decl.Names(), ", "))
	}
	if err := checkAlone(c, spec, given); err != nil {
		return err
	}
	if c.Params, err = spec.Values(c.args); err != nil {
		return badinput.Errorf("workload", "%v", err) // the flags were checked one by one: not reached
	}
	c.args = nil
	if spec.Check != nil {
		if flag, msg := spec.Check(c.Params, c.Batch); msg != "" {
			return badinput.Combinationf(flag, "%s", msg)
		}
	}
	return nil
}

// loopKnobs are the closed loop's own flags, which mean nothing for a
// workload that runs one process per iteration (decl.Spec.Alone).
var loopKnobs = []string{"batch", "workers", "sleep", "sleep-every", "slow-workers", "pin", "one-per-core"}

// checkAlone refuses, with a workload that runs alone (the command), the
// loop's knobs and the other workloads' flags, and an Alone workload's
// flags with any other workload; it runs as one worker, one operation an
// iteration, with GOMAXPROCS left to the process unless given.
func checkAlone(c *Config, spec decl.Spec, given map[string]string) error {
	owner := map[string]decl.Spec{}
	for _, s := range decl.Specs() {
		for _, p := range s.Params {
			owner[p.Name] = s
		}
	}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		o, isParam := owner[name]
		switch {
		case spec.Alone && (slices.Contains(loopKnobs, name) || isParam && o.Name != spec.Name):
			return badinput.Errorf(name, "--%s is not for a command: it runs once per iteration, as one process (the flag is for built-in workloads)", name)
		case !spec.Alone && isParam && o.Alone:
			return badinput.Errorf(name, "--%s is for a command, given after --: throttlebench run [flags] -- CMD [ARGS...]", name)
		}
	}
	if spec.Alone {
		if _, ok := given["command"]; !ok {
			return badinput.Errorf("workload", "--workload %s takes the command after --: throttlebench run [flags] -- CMD [ARGS...]", spec.Name)
		}
		c.Batch, c.Workers, c.Pin, c.OnePerCore = 1, 1, false, false
		if _, ok := given["gomaxprocs"]; !ok {
			c.GOMAXPROCS = "runtime"
		}
	}
	return nil
}

// keepOwn clears the waits' where there are no sleeps: a configuration
// holds only what it runs with (the workload's own, checkWorkload).
func keepOwn(c *Config) {
	if c.Sleep == 0 {
		c.SleepEvery, c.SlowWorkers = 0, 0
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func choice(name, v string, allowed []string) (string, error) {
	if err := badinput.Choice(name, v, allowed); err != nil {
		return "", err
	}
	return v, nil
}

// integer parses a whole number within [lo, hi]; a value that is not one
// (1e12, 99999999999999999999) names the range too.
func integer(name, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, badinput.Errorf(name, "invalid --%s %q: want a whole number between %d and %d", name, v, lo, hi)
	}
	if n < lo || n > hi {
		return 0, badinput.Errorf(name, "invalid --%s %d: must be between %d and %d", name, n, lo, hi)
	}
	return n, nil
}

// MicroDuration parses a Go duration that the kernel can take: whole
// microseconds.
func MicroDuration(name, v string) (time.Duration, error) {
	if err := NeedsUnit(name, v); err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, badinput.Errorf(name, "invalid --%s %q: want a duration such as 100ms or 1.5ms", name, v)
	}
	if d%time.Microsecond != 0 {
		return 0, badinput.Errorf(name, "invalid --%s %q: the kernel takes whole microseconds", name, v)
	}
	return d, nil
}

func parseMinTime(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return badinput.Errorf("min-time", "invalid --min-time %q: want a duration between 0 (off) and %v, such as 10s", v, MaxMinTime)
	}
	if d < 0 || d > MaxMinTime {
		return badinput.Errorf("min-time", "invalid --min-time %v: want a duration between 0 (off) and 1h", d)
	}
	c.MinTime = d
	return nil
}

func parseSleep(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > decl.MaxSleep {
		return badinput.Errorf("sleep", "invalid --sleep %q: want a duration between 0 (no sleeps) and %v, such as 10ms", v, decl.MaxSleep)
	}
	c.Sleep = d
	return nil
}

// parseSlowWorkers needs the workers, resolved before it (Params' order).
func parseSlowWorkers(c *Config, v string) error {
	if v == "all" {
		c.SlowWorkers = c.Workers
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > MaxCPUs {
		return badinput.Errorf("slow-workers", "invalid --slow-workers %q: want a number between 0 and %d, or all", v, MaxCPUs)
	}
	if n > c.Workers {
		return badinput.Combinationf("slow-workers", "invalid --slow-workers %d: more than the %s", n, words.N(c.Workers, "worker"))
	}
	c.SlowWorkers = n
	return nil
}

func parseGOMAXPROCS(c *Config, v string) error {
	if !slices.Contains([]string{"workers", "runtime", runspec.RuleFloor, runspec.RuleCeil}, v) {
		n, err := strconv.Atoi(v)
		// GOMAXPROCS allocates per-P state: a huge value exhausts memory.
		if err != nil || n < 1 || n > MaxCPUs {
			return badinput.Errorf("gomaxprocs", "invalid --gomaxprocs %q: want a number between 1 and %d, workers, runtime, floor or ceil", v, MaxCPUs)
		}
	}
	c.GOMAXPROCS = v
	return nil
}

func parsePeriod(c *Config, v string) error {
	d, err := MicroDuration("period", v)
	if err != nil {
		return err
	}
	if d < MinPeriod || d > MaxPeriod {
		return badinput.Errorf("period", "invalid --period %q: must be between 1ms and 1s", v)
	}
	c.Limits.Period = d
	return nil
}

func parseQuota(c *Config, v string) error {
	if v == "max" {
		c.Limits.Quota = bandwidth.Unlimited
		return nil
	}
	d, err := MicroDuration("quota", v)
	if err != nil {
		return badinput.Errorf("quota", "invalid --quota %q: want a duration of at least 1ms such as 50ms or 1.5ms, or max", v)
	}
	if d < MinQuota {
		return badinput.Errorf("quota", "invalid --quota %q: must be at least 1ms, or max", v)
	}
	if d > MaxCPUs*c.Limits.Period {
		return badinput.Combinationf("quota", "invalid --quota %q: at most %d CPUs' worth, %v per %v period", v, MaxCPUs, MaxCPUs*c.Limits.Period, c.Limits.Period)
	}
	c.Limits.Quota = d
	return nil
}

func parseCPUs(c *Config, v string) error {
	if v == "max" {
		c.Limits.Quota = bandwidth.Unlimited
		return nil
	}
	f, ok := ParseCPUs(v)
	if !ok || !(f > 0) || f > MaxCPUs {
		return badinput.Errorf("cpus", "invalid --cpus %q: want a number of CPUs above 0 and at most %d, %s, or max", v, MaxCPUs, CPUsExample)
	}
	q := bandwidth.Quota(f, c.Limits.Period)
	if q < MinQuota {
		return badinput.Combinationf("cpus", "invalid --cpus %q: gives a quota of %v per %v period, below the kernel's 1ms minimum; use more CPUs or a longer --period", v, q, c.Limits.Period)
	}
	c.Limits.Quota = q
	return nil
}

func parseBurst(c *Config, v string) error {
	d, err := MicroDuration("burst", v)
	if err != nil {
		return err
	}
	if d < 0 {
		return badinput.Errorf("burst", "invalid --burst %q: must not be negative", v)
	}
	if c.Limits.Quota == bandwidth.Unlimited && d > 0 {
		return badinput.Combinationf("burst", "invalid --burst %q: a burst needs a quota (--quota or --cpus)", v)
	}
	if d > c.Limits.Quota && c.Limits.Quota != bandwidth.Unlimited {
		return badinput.Combinationf("burst", "invalid --burst %q: must not exceed the quota %v", v, c.Limits.Quota)
	}
	c.Limits.Burst = d
	return nil
}
