package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/driver"
)

// Kernel limits on CFS bandwidth settings (Documentation/scheduler/sched-bwc.rst).
const (
	minPeriod = time.Millisecond
	maxPeriod = time.Second
	minQuota  = time.Millisecond
)

// Our own bounds: far beyond any machine we run on, small enough that no
// product or conversion overflows (a quota of 1e308 CPUs once came out as 0s).
const (
	maxCPUs    = 1024 // --cpus, --workers, --gomaxprocs; the quota at most maxCPUs × period
	maxTimeout = 30 * 24 * time.Hour
)

// intBounds are the integer flags' allowed ranges, in one place: checked after
// parsing, and named when a value does not even parse as an int (1e12).
var intBounds = map[string]struct{ lo, hi int }{
	"workers":     {1, maxCPUs},
	"batch":       {1, 1_000_000},
	"iterations":  {1, driver.MaxIterations},
	"warmup":      {0, 1_000_000},
	"cost":        {4, 31},
	"max-configs": {1, 1_000_000},
}

// checkInt checks an integer flag against its bounds.
func checkInt(flag string, v int) error {
	b := intBounds[flag]
	if v < b.lo || v > b.hi {
		return usagef("invalid --%s %d: must be between %d and %d", flag, v, b.lo, b.hi)
	}
	return nil
}

// flagErrRE matches pflag's "invalid argument" error for a value it could
// not parse itself (ints, durations, floats, bools).
var flagErrRE = regexp.MustCompile(`^invalid argument (".*") for "(?:-\w, )?--([\w-]+)" flag: `)

// flagError turns pflag's parser text ("strconv.ParseInt: parsing "1e12":
// invalid syntax") into our one line: the flag, the value, what is allowed.
func flagError(err error) error {
	m := flagErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return usagef("%v", err)
	}
	v, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		v = m[1]
	}
	flag := m[2]
	var want string
	switch b, ok := intBounds[flag]; {
	case ok:
		want = fmt.Sprintf("want a whole number between %d and %d", b.lo, b.hi)
	case flag == "timeout":
		want = fmt.Sprintf("want a duration between 0 (no limit) and %v, such as 90s or 10m", maxTimeout)
	case flag == "min-time":
		want = fmt.Sprintf("want a duration between 0 (off) and %v, such as 10s", maxMinTime)
	case flag == "alpha":
		want = "want a number between 0 and 1 (exclusive), such as 0.05"
	case flag == "quiet":
		want = "want true or false"
	default:
		return usagef("%v", err)
	}
	return usagef("invalid --%s %q: %s", flag, v, want)
}

// parseMicroDuration parses a Go duration that the kernel can take: whole
// microseconds.
func parseMicroDuration(flag, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, usagef("invalid --%s %q: want a duration such as 100ms or 1.5ms", flag, v)
	}
	if d%time.Microsecond != 0 {
		return 0, usagef("invalid --%s %q: the kernel takes whole microseconds", flag, v)
	}
	return d, nil
}

// limitFlags are the CFS settings shared by the commands that create slices.
type limitFlags struct {
	period, quota, cpus, burst string
}

// resolve turns the flags into kernel limits; set says whether any was given.
func (f limitFlags) resolve() (l cgroup.Limits, set bool, err error) {
	l = cgroup.Limits{Period: 100 * time.Millisecond, Quota: cgroup.Unlimited}
	set = f.period != "" || f.quota != "" || f.cpus != "" || f.burst != ""
	if f.period != "" {
		if l.Period, err = parseMicroDuration("period", f.period); err != nil {
			return l, set, err
		}
		if l.Period < minPeriod || l.Period > maxPeriod {
			return l, set, usagef("invalid --period %q: must be between 1ms and 1s", f.period)
		}
	}
	if f.cpus != "" && f.quota != "" {
		return l, set, usagef("--cpus %q conflicts with --quota %q: give one of them (quota = cpus × period)", f.cpus, f.quota)
	}
	switch {
	case f.quota == "max":
	case f.quota != "":
		if l.Quota, err = parseMicroDuration("quota", f.quota); err != nil {
			return l, set, usagef("invalid --quota %q: want a duration of at least 1ms, or max", f.quota)
		}
		if l.Quota < minQuota {
			return l, set, usagef("invalid --quota %q: must be at least 1ms, or max", f.quota)
		}
		if l.Quota > maxCPUs*l.Period {
			return l, set, combinationf("invalid --quota %q: at most %d CPUs' worth, %v per %v period", f.quota, maxCPUs, maxCPUs*l.Period, l.Period)
		}
	case f.cpus != "":
		c, perr := strconv.ParseFloat(f.cpus, 64)
		if perr != nil || !(c > 0) || c > maxCPUs {
			return l, set, usagef("invalid --cpus %q: want a number of CPUs above 0 and at most %d, such as 0.5", f.cpus, maxCPUs)
		}
		l.Quota = (time.Duration(math.Round(c*float64(l.Period/time.Microsecond))) * time.Microsecond)
		if l.Quota < minQuota {
			return l, set, combinationf("invalid --cpus %q: gives a quota of %v per %v period, below the kernel's 1ms minimum; use more CPUs or a longer --period", f.cpus, l.Quota, l.Period)
		}
	}
	if f.burst != "" {
		if l.Burst, err = parseMicroDuration("burst", f.burst); err != nil {
			return l, set, err
		}
		if l.Burst < 0 {
			return l, set, usagef("invalid --burst %q: must not be negative", f.burst)
		}
		if l.Quota == cgroup.Unlimited && l.Burst > 0 {
			return l, set, combinationf("invalid --burst %q: a burst needs a quota (--quota or --cpus)", f.burst)
		}
		if l.Burst > l.Quota {
			return l, set, combinationf("invalid --burst %q: must not exceed the quota %v", f.burst, l.Quota)
		}
	}
	return l, set, nil
}

// parseGOMAXPROCS reads --gomaxprocs: a number, "workers" or "runtime".
// It returns the value to set (0 = the runtime's own default).
func parseGOMAXPROCS(v string, workers int) (int, error) {
	switch v {
	case "workers":
		return workers, nil
	case "runtime":
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	// GOMAXPROCS allocates per-P state: a huge value exhausts memory.
	if err != nil || n < 1 || n > maxCPUs {
		return 0, usagef("invalid --gomaxprocs %q: want a number between 1 and %d, workers or runtime", v, maxCPUs)
	}
	return n, nil
}

func checkChoice(flag, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return usagef("invalid --%s %q: want one of %s", flag, v, strings.Join(allowed, ", "))
	}
	return nil
}

// checkOutput refuses, before any work is done rather than after a long run,
// an --output (or --plot) that is no place for a result: a device, a
// directory, a missing or unwritable directory, a kernel filesystem.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	if _, err := atomicfile.Target(path); err != nil {
		return usagef("invalid --%s %q: %v", flag, path, err)
	}
	return nil
}
