package config

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Bounds of the open loop's parameters: far beyond a useful run, small
// enough that a typo is refused rather than run for a day.
const (
	MaxRate         = 1_000_000 // requests per second
	MaxRequestTime  = 10 * time.Second
	MaxOpenDuration = 24 * time.Hour
	MinOpenDuration = 10 * time.Millisecond
	MaxCycle        = time.Hour // --on, --off
)

// openLoopParams are latency's own (runspec.OpenLoop). Rate and work are
// axes: inner to the limits, so a table reads down a rate scan.
var openLoopParams = []Param{
	{Name: "rate", For: Latency, Kind: Float, Default: "100", Axis: true, AxisRank: 9,
		Help: "requests per second (the mean over a cycle for onoff)", parse: parseRate},
	{Name: "arrivals", For: Latency, Kind: Words, Default: runspec.ArrivalsPoisson, Words: runspec.ArrivalKinds,
		Help: "arrival schedule: fixed (every 1/rate), poisson (exponential gaps), onoff (a cycle's requests spread over --on, none during --off), once (--count requests at the same instant)",
		parse: func(c *Config, v string) (err error) {
			c.Arrivals, err = choice("arrivals", v, runspec.ArrivalKinds)
			return
		}},
	{Name: "on", For: Latency, Kind: Duration, Default: "50ms", Help: "onoff: how long a cycle's requests arrive",
		parse: func(c *Config, v string) (err error) { c.On, err = span("on", v, 1, MaxCycle); return }},
	{Name: "off", For: Latency, Kind: Duration, Default: "450ms", Help: "onoff: how long no request arrives after --on",
		parse: func(c *Config, v string) (err error) { c.Off, err = span("off", v, 0, MaxCycle); return }},
	{Name: "work", For: Latency, Kind: Duration, Default: "1ms", Axis: true, AxisRank: 8,
		Help:  "CPU time each request needs (a loop calibrated on this machine)",
		parse: func(c *Config, v string) (err error) { c.Work, err = span("work", v, 0, MaxRequestTime); return }},
	{Name: "wait", For: Latency, Kind: Duration, Default: "0s", Help: "a sleep inside each request after its work, like waiting on I/O",
		parse: func(c *Config, v string) (err error) { c.Wait, err = span("wait", v, 0, MaxRequestTime); return }},
	{Name: "queue", For: Latency, Kind: Int, Default: "1000",
		Help: "requests that may wait for a worker; one that finds the queue full is dropped (and counted)",
		parse: func(c *Config, v string) (err error) {
			c.Queue, err = integer("queue", v, 0, runspec.MaxRequests)
			return
		}},
	{Name: "duration", For: Latency, Kind: Duration, Default: "10s", Help: "how long requests arrive",
		parse: func(c *Config, v string) (err error) {
			c.Duration, err = span("duration", v, MinOpenDuration, MaxOpenDuration)
			return
		}},
	{Name: "seed", For: Latency, Kind: Int, Default: "1", Help: "seed of the poisson schedule: the same seed, the same arrivals",
		parse: func(c *Config, v string) error {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return badinput.Errorf("seed", "invalid --seed %q: want a whole number between 0 and %d", v, uint64(math.MaxUint64))
			}
			c.Seed = n
			return nil
		}},
}

func parseRate(c *Config, v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f > 0) || f > MaxRate {
		return badinput.Errorf("rate", "invalid --rate %q: want requests per second above 0 and at most %d, such as 200", v, MaxRate)
	}
	c.Rate = f
	return nil
}

// span parses a duration within [lo, hi].
func span(name, v string, lo, hi time.Duration) (time.Duration, error) {
	if err := NeedsUnit(name, v); err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < lo || d > hi {
		return 0, badinput.Errorf(name, "invalid --%s %q: want a duration between %v and %v", name, v, lo, hi)
	}
	return d, nil
}

// checkOpenLoop checks how the open loop's values combine; given are the
// values the user gave, to refuse an --on or --off that would do nothing.
func checkOpenLoop(c Config, given map[string]string) error {
	if c.Arrivals != runspec.ArrivalsOnOff {
		for _, name := range []string{"on", "off"} {
			if v, ok := given[name]; ok {
				return badinput.Errorf(name, "--%s %q applies only to --arrivals onoff (--arrivals is %s)", name, v, c.Arrivals)
			}
		}
	}
	// Counted as the schedule will be: the number of arrivals in Duration.
	// A poisson count varies by √n: six of those above the mean must fit
	// too, or the schedule would be cut at the cap and the run end early.
	n := c.Rate * c.Duration.Seconds()
	most := n
	if c.Arrivals == runspec.ArrivalsPoisson {
		most += 6 * math.Sqrt(n)
	}
	switch {
	case most > runspec.MaxRequests:
		return badinput.Combinationf("rate", "invalid --rate %v with --duration %v: %.0f requests, at most %d (%s); lower the rate or shorten the run",
			c.Rate, c.Duration, n, runspec.MaxRequests, capNote(c.Arrivals))
	// Only a short schedule can be empty (poisson's first gap may pass the
	// end); a long one is not built twice.
	case n < 100 && len(runspec.Schedule(c.OpenLoop(0))) == 0:
		return badinput.Combinationf("rate", "invalid --rate %v with --duration %v: no request would arrive; raise the rate or lengthen the run", c.Rate, c.Duration)
	}
	return nil
}

// OpenLoop is the open-loop driver's configuration; gomaxprocs as
// GOMAXPROCSValue gives it.
func (c Config) OpenLoop(gomaxprocs int) runspec.OpenLoop {
	return runspec.OpenLoop{Rate: c.Rate, Arrivals: c.Arrivals, On: c.On, Off: c.Off, Work: c.Work, Wait: c.Wait,
		Workers: c.Workers, Queue: c.Queue, Duration: c.Duration, Seed: c.Seed, GOMAXPROCS: gomaxprocs,
		Count: c.Count, Instances: c.Instances}
}

func capNote(arrivals string) string {
	if arrivals == runspec.ArrivalsPoisson {
		return "less a margin for the poisson count's spread"
	}
	return "the longest schedule"
}
