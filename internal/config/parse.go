package config

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/words"
)

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
