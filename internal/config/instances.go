package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// The instances' parameters (latency --instances), and --arrivals once's
// count. Their defaults apply only with --instances (resolveInstances): a
// latency run without it holds none of them, and refuses them when given.
const (
	DefaultConcurrency     = 80 // Google Cloud Run's default concurrency per instance
	MaxConcurrency         = 1000
	DefaultKeepAlive       = 10 * time.Minute
	MaxKeepAlive           = 24 * time.Hour
	DefaultBillGranularity = time.Millisecond // AWS Lambda's since 2020
	MaxBillGranularity     = time.Hour
	// MaxInstanceRequests bounds a run on instances: every request is a
	// round trip through a pipe and a record in the report.
	MaxInstanceRequests = 100_000
)

// instancesWords are what --instances takes; pool: is followed by a
// number (sweep.Expand takes a word ending in ':' as a prefix).
var instancesWords = []string{instances.PerRequest, instances.Shared, instances.Pool + ":"}

// instanceOnly are the parameters that mean something only with
// --instances.
var instanceOnly = []string{"concurrency", "init", "init-memory", "keep-alive", "bill-granularity"}

var instanceParams = []Param{
	{Name: "count", For: Latency, Kind: Int, Help: "--arrivals once: how many requests arrive at the same instant (default 1)",
		parse: func(c *Config, v string) (err error) {
			c.Count, err = integer("count", v, 1, runspec.MaxRequests)
			return
		}},
	{Name: "concurrency", For: Latency, Kind: Int,
		Help: fmt.Sprintf("--instances shared and pool:N: the most requests one instance serves at once (default %d, Cloud Run's)", DefaultConcurrency),
		parse: func(c *Config, v string) (err error) {
			c.Concurrency, err = integer("concurrency", v, 1, MaxConcurrency)
			return
		}},
	{Name: "init", For: Latency, Kind: Duration, Help: "--instances: an instance's cold start, CPU time spent as --work is (default 0s)",
		parse: func(c *Config, v string) (err error) { c.Init, err = span("init", v, 0, MaxRequestTime); return }},
	{Name: "init-memory", For: Latency, Kind: Words,
		Help:  "--instances: memory an instance touches in its cold start and keeps, in bytes or with a unit (80MB, 64MiB; default 0)",
		parse: parseInitMemory},
	{Name: "keep-alive", For: Latency, Kind: Duration, Help: "--instances: an instance idle this long is retired, its slice removed; 0 retires it at once (default 10m)",
		parse: func(c *Config, v string) (err error) {
			c.KeepAlive, err = span("keep-alive", v, 0, MaxKeepAlive)
			return
		}},
	{Name: "bill-granularity", For: Latency, Kind: Duration,
		Help: "--instances: the per-request bill rounds each request's duration up to this (default 1ms)",
		parse: func(c *Config, v string) (err error) {
			c.BillGranularity, err = span("bill-granularity", v, 1, MaxBillGranularity)
			return
		}},
	// Last: it reads the others.
	{Name: "instances", For: Latency, Kind: Words, Words: instancesWords, Axis: true, AxisRank: 10,
		Help: "serve the requests with instances, each a process in a slice of its own with the full limits: " +
			"per-request (one request at a time each, a new instance when none is idle), shared (one instance, up to --concurrency at once), " +
			"pool:N (up to N instances of --concurrency)",
		parse: parseInstances},
}

func parseInstances(c *Config, v string) error {
	if _, err := instances.ParsePolicy(v, 1, 0); err != nil {
		return badinput.Errorf("instances", "invalid --instances %q: %v", v, err)
	}
	c.InstancesPolicy = v
	return nil
}

// parseInitMemory reads a size: whole bytes, or a number with a unit of
// B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (of 1024).
func parseInitMemory(c *Config, v string) error {
	bad := badinput.Errorf("init-memory", "invalid --init-memory %q: want a size between 0 and 1GiB, in bytes or such as 80MB or 64MiB", v)
	s := strings.TrimSpace(v)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	mult, ok := map[string]float64{"": 1, "B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" {
		return bad
	}
	if mult == 1 && strings.Contains(num, ".") {
		return badinput.Errorf("init-memory", "invalid --init-memory %q: a number of bytes is whole; give a unit for a fraction, such as 1.5MB", v)
	}
	b := math.Round(f * mult)
	if !(b >= 0) || b > runspec.MaxInitMemory {
		return bad
	}
	c.InitMemory = int64(b)
	return nil
}

// resolveInstances finishes a latency configuration: --arrivals once's
// count, and the instances' parameters, which take their defaults only
// with --instances and are refused without it, as are the workers' with
// it. given are the values the user gave.
func resolveInstances(c *Config, given map[string]string) error {
	if c.Arrivals == runspec.ArrivalsOnce {
		for _, name := range []string{"rate", "duration"} {
			if v, ok := given[name]; ok {
				return badinput.Errorf(name, "--%s %q does not apply to --arrivals once: --count requests arrive at the start", name, v)
			}
		}
		if c.Count == 0 {
			c.Count = 1
		}
		c.Rate, c.Duration = 0, 0
	} else if v, ok := given["count"]; ok {
		return badinput.Errorf("count", "--count %q applies only to --arrivals once (--arrivals is %s)", v, c.Arrivals)
	}
	if c.InstancesPolicy == "" {
		for _, name := range instanceOnly {
			if v, ok := given[name]; ok {
				return badinput.Errorf(name, "--%s %q applies only with --instances", name, v)
			}
		}
		return nil
	}
	for _, name := range []string{"workers", "queue"} {
		if v, ok := given[name]; ok {
			return badinput.Errorf(name, "--%s %q does not apply with --instances: an instance serves up to --concurrency requests, and the rest wait at the dispatcher", name, v)
		}
	}
	// Each instance's slice gets the run's CFS limits; a cpuset twin per
	// instance is not built (runner.Fleet), so --cpuset is refused rather
	// than silently dropped.
	if v, ok := given["cpuset"]; ok {
		return badinput.Errorf("cpuset", "--cpuset %q does not apply with --instances: each instance's slice gets the CFS limits only; confine the instances with taskset around throttlebench instead", v)
	}
	if _, ok := given["concurrency"]; !ok {
		c.Concurrency = DefaultConcurrency
	}
	if _, ok := given["keep-alive"]; !ok {
		c.KeepAlive = DefaultKeepAlive
	}
	if _, ok := given["bill-granularity"]; !ok {
		c.BillGranularity = DefaultBillGranularity
	}
	n := c.Rate * c.Duration.Seconds()
	if c.Arrivals == runspec.ArrivalsOnce {
		n = float64(c.Count)
	}
	if n > MaxInstanceRequests {
		param, what := "rate", fmt.Sprintf("--rate %v with --duration %v", c.Rate, c.Duration)
		if c.Arrivals == runspec.ArrivalsOnce {
			param, what = "count", fmt.Sprintf("--count %d", c.Count)
		}
		return badinput.Combinationf(param, "invalid %s with --instances: %.0f requests, at most %d on instances", what, n, MaxInstanceRequests)
	}
	p, err := instances.ParsePolicy(c.InstancesPolicy, c.Concurrency, c.KeepAlive)
	if err != nil {
		return badinput.Errorf("instances", "invalid --instances %q: %v", c.InstancesPolicy, err)
	}
	c.Workers, c.Queue = 0, 0
	c.Instances = &runspec.Instances{Policy: c.InstancesPolicy, Concurrency: p.Concurrency, Init: c.Init, InitMemory: c.InitMemory,
		KeepAlive: c.KeepAlive, BillGranularity: c.BillGranularity}
	return nil
}
