package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// The fuzz targets below feed the parsers of duration and CPU parameters
// arbitrary strings. Whatever the input: no panic; an error is a *badinput.Error
// (exit 2) of one line that names the flag; a success is limits the kernel
// accepts.

// kernelMaxQuota is the kernel's bound on a quota, and on quota + burst:
// 2^44−1 µs (max_cfs_runtime in kernel/sched/core.c; this machine's kernel
// refuses cpu.cfs_quota_us 17592186044416 and takes 17592186044415).
const kernelMaxQuota = (1<<44 - 1) * time.Microsecond

// checkUsageError fails unless err is a *badinput.Error of one line that names one
// of flags ("--quota").
func checkUsageError(t *testing.T, err error, flags ...string) {
	t.Helper()
	var ue *badinput.Error
	if !errors.As(err, &ue) {
		t.Fatalf("error is not a usage error (exit 2): %T %v", err, err)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("error of more than one line: %q", msg)
	}
	for _, f := range flags {
		if strings.Contains(msg, "--"+f) {
			return
		}
	}
	t.Fatalf("error names none of --%s: %q", strings.Join(flags, ", --"), msg)
}

func FuzzParseMicroDuration(f *testing.F) {
	for _, s := range []string{"100ms", "1.5ms", "1500ns", "1µs", "1us", "-5ms", "0", "fast", "",
		"2562047h47m16.854775807s", "9223372036854775807ns", "1h1m1s1ms1us"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, err := MicroDuration("period", v)
		if err != nil {
			checkUsageError(t, err, "period")
			if !strings.HasPrefix(err.Error(), "invalid --period ") {
				t.Fatalf("error %q does not start with invalid --period", err)
			}
			return
		}
		if d%time.Microsecond != 0 {
			t.Fatalf("%q gave %v: not whole microseconds", v, d)
		}
		if want, _ := time.ParseDuration(v); d != want {
			t.Fatalf("%q gave %v, want %v", v, d, want)
		}
	})
}

// FuzzLimitFlags: --period, --quota, --cpus and --burst together.
func FuzzLimitFlags(f *testing.F) {
	for _, s := range [][4]string{
		{"", "", "", ""},
		{"10ms", "", "0.5", ""},
		{"", "50ms", "", ""},
		{"", "max", "", ""},
		{"", "20ms", "", "20ms"},
		{"1s", "", "0.001", ""},
		{"1ms", "", "1.5", "500us"},
		{"", "", "0.5", "-1ms"},
		{"", "", "0.005", ""},
		{"", "5ms", "0.5", ""},
		{"500us", "", "", ""},
		{"", "", "", "5ms"},
		{"", "2562047h", "", ""},
		{"", "", "1e308", ""},
		{"", "", "2e11", ""},
		{"", "", "1.8e8", ""},
		{"", "4886h", "", "1h"},
		{"1s", "", "1.7e7", "1ms"},
		{"", "", "1 ", ""},
		{"", "", "500m", ""},
		{"", "", " 2.5k", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, period, quota, cpus, burst string) {
		fl := map[string]string{}
		for name, v := range map[string]string{"period": period, "quota": quota, "cpus": cpus, "burst": burst} {
			if v != "" {
				fl[name] = v
			}
		}
		c, err := Resolve(fl)
		l := c.Limits
		if want := len(fl) > 0; err == nil && c.LimitsSet != want {
			t.Fatalf("%+v: set = %v", fl, c.LimitsSet)
		}
		if err != nil {
			var given []string
			for name, v := range map[string]string{"period": period, "quota": quota, "cpus": cpus, "burst": burst} {
				if v != "" {
					given = append(given, name)
				}
			}
			checkUsageError(t, err, given...)
			return
		}
		whole := func(d time.Duration) bool { return d%time.Microsecond == 0 }
		if l.Period < time.Millisecond || l.Period > time.Second || !whole(l.Period) {
			t.Fatalf("%+v: period %v, want whole microseconds within 1ms–1s", fl, l.Period)
		}
		if l.Quota != bandwidth.Unlimited && (l.Quota < time.Millisecond || l.Quota > kernelMaxQuota || !whole(l.Quota)) {
			t.Fatalf("%+v: quota %v, want unlimited or whole microseconds within 1ms–%v", fl, l.Quota, kernelMaxQuota)
		}
		if l.Burst < 0 || !whole(l.Burst) || (l.Quota == bandwidth.Unlimited && l.Burst != 0) ||
			(l.Quota != bandwidth.Unlimited && (l.Burst > l.Quota || l.Quota+l.Burst > kernelMaxQuota)) {
			t.Fatalf("%+v: burst %v with quota %v, want whole microseconds within 0–quota, quota+burst ≤ %v", fl, l.Burst, l.Quota, kernelMaxQuota)
		}
		if cpus != "" && l.Quota != bandwidth.Unlimited {
			// quota = cpus × period, to the microsecond: not a product wrapped
			// around. The number is read as --cpus reads it (spaces trimmed, a
			// quantity such as 500m): a fuzzed "1 " once read here as 0 CPUs.
			c, ok := ParseCPUs(cpus)
			if !ok {
				t.Fatalf("%+v: --cpus %q taken, but it is not a quantity", fl, cpus)
			}
			want := c * float64(l.Period/time.Microsecond)
			if got := float64(l.Quota / time.Microsecond); math.Abs(got-want) > 0.5+want*1e-12 {
				t.Fatalf("%+v: quota %v for %v CPUs × %v", fl, l.Quota, c, l.Period)
			}
		}
	})
}

func FuzzParseGOMAXPROCS(f *testing.F) {
	for _, s := range []string{"workers", "runtime", "1", "4", "0", "-1", "all", "", "9223372036854775808"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, v string, workers int) {
		c, err := Resolve(map[string]string{"gomaxprocs": v, "workers": strconv.Itoa(workers)})
		n := c.GOMAXPROCSValue()
		if err != nil {
			checkUsageError(t, err, "gomaxprocs", "workers")
			return
		}
		switch {
		case v == "workers":
			if n != workers {
				t.Fatalf("workers gave %d, want %d", n, workers)
			}
		case v == "runtime":
			if n != 0 {
				t.Fatalf("runtime gave %d, want 0 (the runtime's default)", n)
			}
		case n < 1:
			t.Fatalf("%q gave %d, want ≥ 1", v, n)
		}
	})
}

// FuzzOpenLoopFlags: latency's --rate, --arrivals, --on, --off and
// --duration together. A success is a schedule that can be built: a rate
// above 0, at most MaxRequests arrivals, at least one, all before the end.
func FuzzOpenLoopFlags(f *testing.F) {
	for _, s := range [][5]string{
		{"", "", "", "", ""},
		{"200", "onoff", "50ms", "450ms", "20s"},
		{"1e6", "fixed", "", "", "10s"},
		{"1e6", "poisson", "", "", "10s"},
		{"0.01", "poisson", "", "", "1s"},
		{"0.3", "onoff", "1ns", "0s", "10ms"},
		{"NaN", "", "", "", ""},
		{"100", "fixed", "10ms", "", ""},
		{"1e-300", "onoff", "1h", "1h", "24h"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, rate, arrivals, on, off, duration string) {
		fl := map[string]string{}
		for name, v := range map[string]string{"rate": rate, "arrivals": arrivals, "on": on, "off": off, "duration": duration} {
			if v != "" {
				fl[name] = v
			}
		}
		c, err := ResolveFor(Latency, fl)
		if err != nil {
			checkUsageError(t, err, "rate", "arrivals", "on", "off", "duration")
			return
		}
		n := c.Rate * c.Duration.Seconds()
		if !(c.Rate > 0) || n > runspec.MaxRequests {
			t.Fatalf("%v gave rate %v over %v: %v requests", fl, c.Rate, c.Duration, n)
		}
		if n > 1e5 {
			return // too long to build in every iteration
		}
		s := runspec.Schedule(c.OpenLoop(1))
		if len(s) == 0 || s[len(s)-1] >= c.Duration {
			t.Fatalf("%v: a schedule of %d arrivals, ending at %v of %v", fl, len(s), s[len(s)-1:], c.Duration)
		}
	})
}

// FuzzInstanceFlags: latency's --instances, --concurrency, --init-memory
// and --count (with --arrivals once) together. A success is instances the
// dispatcher can run: a policy it parses, at least one slot, memory within
// bounds, a count within the cap on instances.
func FuzzInstanceFlags(f *testing.F) {
	for _, s := range [][4]string{
		{"", "", "", ""},
		{"per-request", "", "", "10"},
		{"shared", "10", "80MB", "10"},
		{"pool:4", "2", "64MiB", ""},
		{"pool:0", "", "", ""},
		{"pool:x", "", "", ""},
		{"pool:256", "1000", "1GiB", "100000"},
		{"shared", "0", "", ""},
		{"", "", "1.5KiB", ""},
		{"shared", "", "1e3", "0"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, inst, concurrency, mem, count string) {
		fl := map[string]string{}
		for name, v := range map[string]string{"instances": inst, "concurrency": concurrency, "init-memory": mem, "count": count} {
			if v != "" {
				fl[name] = v
			}
		}
		if count != "" {
			fl["arrivals"] = "once"
		}
		c, err := ResolveFor(Latency, fl)
		if err != nil {
			checkUsageError(t, err, "instances", "concurrency", "init-memory", "count", "arrivals")
			return
		}
		if inst == "" {
			if c.Instances != nil {
				t.Fatalf("%v: instances without --instances", fl)
			}
			return
		}
		in := c.Instances
		if _, err := instances.ParsePolicy(in.Policy, in.Concurrency, in.KeepAlive); err != nil {
			t.Fatalf("%v: %+v does not parse: %v", fl, in, err)
		}
		if in.Concurrency < 1 || in.Concurrency > MaxConcurrency || in.InitMemory < 0 || in.InitMemory > runspec.MaxInitMemory {
			t.Fatalf("%v: %+v out of bounds", fl, in)
		}
		if n := len(runspec.Schedule(c.OpenLoop(1))); count != "" && (n < 1 || n > MaxInstanceRequests) {
			t.Fatalf("%v: %d requests", fl, n)
		}
	})
}
