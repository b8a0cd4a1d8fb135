package inspect

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/topology"
	"github.com/throttlebench/throttlebench/internal/words"
)

// caveats are what follows from the report for numbers measured here, one
// line each; each rule says only what the report shows.
func caveats(r *Report, top *topology.Topology, chain []cgroup.Level) []string {
	out := []string{}
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	c, cg := r.CPUs, r.Cgroup

	allowed := c.Online
	if c.Affinity != nil {
		allowed = intersect(c.Affinity, c.Online)
	}
	if cores := top.CoresOf(allowed); c.SMT && cores < len(allowed) {
		add("SMT on: more workers than cores (%d) will run at uneven speed, as two threads of one core share it; --one-per-core uses one thread of each core", cores)
	}
	if len(c.Offline) > 0 {
		msg := fmt.Sprintf("offline CPUs %s: %d of the %s run nothing", cpulist.Format(c.Offline), len(c.Offline), words.N(len(c.Offline)+len(c.Online), "CPU"))
		if lo, hi := threadRange(c.Siblings); lo != hi {
			msg += fmt.Sprintf("; cores run %d to %d online threads, as some lost a sibling", lo, hi)
		}
		add("%s", msg)
	}
	if c.Affinity != nil && len(allowed) < len(c.Online) {
		add("affinity %s: this process, and any workload it starts, may run on %d of the %d online CPUs", cpulist.Format(c.Affinity), len(allowed), len(c.Online))
	}

	// The level whose quota makes effective_cpus, if a quota does.
	binding := -1
	if eff := cg.EffectiveCPUs; eff != nil {
		for i, l := range cg.Levels {
			if l.CPUs != nil && *l.CPUs == *eff {
				binding = i
				break
			}
		}
		if binding >= 0 && *eff < float64(len(c.Online)) {
			l := cg.Levels[binding]
			add("effective_cpus %s < %d online CPUs: the quota of %s (%v per %v) holds all the processes in it to %s CPUs together",
				num(*eff), len(c.Online), l.Path, us(l.QuotaUs), us(*l.PeriodUs), num(*eff))
		}
	}

	gmp := r.Go.GOMAXPROCSDefault
	switch {
	case r.Go.GOMAXPROCSEnv != "":
		add("GOMAXPROCS=%s is set in the environment: Go's default here is %d whatever the CPUs and limits, and --gomaxprocs runtime inherits it", r.Go.GOMAXPROCSEnv, gmp)
	case gmp > 0 && gmp < c.NumCPU && len(cg.Levels) > 0 && cg.Levels[0].CPUs != nil && goDefault(c.NumCPU, *cg.Levels[0].CPUs) == gmp:
		add("GOMAXPROCS default %d follows this cgroup's CPU limit (%s CPUs, rounded up, at least 2), not the %d CPUs: --gomaxprocs runtime runs %d threads at once",
			gmp, num(*cg.Levels[0].CPUs), c.NumCPU, gmp)
	}
	if r.Go.GOMAXPROCSEnv == "" && binding > 0 && goDefault(c.NumCPU, *cg.EffectiveCPUs) < gmp {
		add("the quota of %s (%s CPUs) is tighter than this cgroup's own, and Go reads only its own cgroup: the default GOMAXPROCS %d lets more threads run at once than that quota",
			cg.Levels[binding].Path, num(*cg.EffectiveCPUs), gmp)
	}

	switch {
	case cg.Version == 0 && cg.Error == "":
		add("no cgroup hierarchy holds the cpu controller: no limit applies here and no slice can be created")
	case cg.Version != 0 && !r.CanCreateSlice:
		add("no slice can be created here (%s): run and sweep can measure the limits in place (--cgroup current), or create slices in a cgroup delegated to this user (--parent)", r.SliceCheck)
	}
	if cg.Error != "" {
		add("cgroup not fully read: %s", cg.Error)
	}
	if cg.Version == 1 && cg.CPUAcctApart {
		add("cgroup v1 with cpuacct mounted apart from cpu: a created slice's usage counter is its twin there, which a --parent you name must have already (else its usage comes from the workload's own CPU clock)")
	}
	if b := r.Kernel.BurstSupported; b != nil && !*b {
		add("no burst support in this kernel (%s; CFS burst came with Linux 5.14): --burst cannot be set", missing(r.Kernel.BurstEvidence))
	}

	if m := r.Machine; m != nil && m.WindowMs > 0 {
		window := time.Duration(m.WindowMs * float64(time.Millisecond))
		// Both /proc/stat readings round to a tick.
		others := m.BusyCPUs - float64(2*host.Tick)/float64(window)
		if others >= build.DefaultThresholds.BusyCPUs {
			add("busy machine: %.2f of %s were busy on average over %v while inspect waited: other load will compete with a benchmark here",
				m.BusyCPUs, words.N(len(c.Online), "CPU"), window)
		}
	}
	return out
}

// goDefault is Go's default GOMAXPROCS (Go ≥ 1.25) under a CPU limit:
// the limit rounded up, at least 2, at most the CPUs.
func goDefault(ncpu int, limit float64) int {
	return min(ncpu, max(2, int(math.Ceil(limit))))
}

func threadRange(siblings [][]int) (lo, hi int) {
	for i, s := range siblings {
		if i == 0 || len(s) < lo {
			lo = len(s)
		}
		hi = max(hi, len(s))
	}
	return lo, hi
}

func intersect(a, b []int) []int {
	out := []int{}
	for _, v := range a {
		if slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

func missing(evidence string) string {
	if strings.HasPrefix(evidence, "/") {
		return evidence + " is missing"
	}
	return evidence
}

// num shows a number of CPUs: 0.5, 2, 0.333333.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func us(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
