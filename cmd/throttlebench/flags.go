package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// Kernel limits on CFS bandwidth settings (Documentation/scheduler/sched-bwc.rst).
const (
	minPeriod = time.Millisecond
	maxPeriod = time.Second
	minQuota  = time.Millisecond
	// maxQuota bounds a quota, and a quota plus its burst: 2^44−1 µs
	// (max_cfs_runtime in kernel/sched/core.c), about 203 days.
	maxQuota = (1<<44 - 1) * time.Microsecond
)

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
		if l.Quota > maxQuota {
			return l, set, usagef("invalid --quota %q: must be at most %v (the kernel's limit), or max", f.quota, maxQuota)
		}
	case f.cpus != "":
		c, perr := strconv.ParseFloat(f.cpus, 64)
		if perr != nil || !(c > 0) || math.IsInf(c, 0) {
			return l, set, usagef("invalid --cpus %q: want a number of CPUs above 0, such as 0.5", f.cpus)
		}
		// Bounded while still a float: a Duration beyond maxQuota could wrap around.
		us := math.Round(c * float64(l.Period/time.Microsecond))
		if us > float64(maxQuota/time.Microsecond) {
			return l, set, combinationf("invalid --cpus %q: gives a quota above the kernel's maximum of %v per %v period; use fewer CPUs or a shorter --period", f.cpus, maxQuota, l.Period)
		}
		l.Quota = time.Duration(us) * time.Microsecond
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
		if l.Quota != cgroup.Unlimited && l.Burst > maxQuota-l.Quota {
			return l, set, combinationf("invalid --burst %q: quota %v plus burst must not exceed the kernel's limit %v", f.burst, l.Quota, maxQuota)
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
	if err != nil || n < 1 {
		return 0, usagef("invalid --gomaxprocs %q: want a number ≥ 1, workers or runtime", v)
	}
	return n, nil
}

func checkChoice(flag, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return usagef("invalid --%s %q: want one of %s", flag, v, strings.Join(allowed, ", "))
	}
	return nil
}

func checkRange(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("invalid --%s %d: must be between %d and %d", flag, v, lo, hi)
	}
	return nil
}

// checkOutput refuses an --output whose directory does not exist before any
// work is done, rather than after a long run.
func checkOutput(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("invalid --output %q: directory %s does not exist", path, dir)
	}
	return nil
}
