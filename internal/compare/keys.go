package compare

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
)

// keyReader reads one key back from a result: its text, for matching and
// labels ("" leaves it out of a label, as a key not set), and its JSON
// value, which compare's JSON keeps even where the text is "".
type keyReader func(r *report.Report) (text string, value any)

// configKeys read the configuration's keys back from a result, by the JSON
// name config.Params gives each key (Param.Key): the parameters declare
// which of them tell two configurations apart, compare how a result is
// read for them. A key config names and compare cannot read panics when
// the package loads (keyDefs), so no test of compare passes without it.
var configKeys = func() map[string]keyReader {
	keys := map[string]keyReader{
		"workload":   workloadKey,
		"batch":      loopKey(func(c report.Config) int { return c.Batch }),
		"workers":    loopKey(func(c report.Config) int { return c.Workers }),
		"gomaxprocs": gomaxprocsKey,
		"period_us": func(r *report.Report) (string, any) {
			if r.Cgroup.PeriodUs == nil {
				return "none", nil
			}
			return keyUs(*r.Cgroup.PeriodUs), *r.Cgroup.PeriodUs
		},
		"quota_us": func(r *report.Report) (string, any) {
			if r.Cgroup.QuotaUs < 0 {
				return "max", r.Cgroup.QuotaUs
			}
			return keyUs(r.Cgroup.QuotaUs), r.Cgroup.QuotaUs
		},
		"burst_us": func(r *report.Report) (string, any) { return keyUs(r.Cgroup.BurstUs), r.Cgroup.BurstUs },
		// The placement's keys read "" (compare leaves them out) when not
		// asked for: results from before they existed read as they did.
		"cpuset":       func(r *report.Report) (string, any) { return r.Config.Cpuset, r.Config.Cpuset },
		"pin":          func(r *report.Report) (string, any) { return flagKey(r.Config.Pin), r.Config.Pin },
		"one_per_core": func(r *report.Report) (string, any) { return flagKey(r.Config.OnePerCore), r.Config.OnePerCore },
	}
	// A workload's parameter that is a key of its own (bcrypt's cost); the
	// others are in the workload's key (workloadKey).
	for _, spec := range decl.Specs() {
		for _, wp := range spec.Params {
			if !wp.OwnKey {
				continue
			}
			key, owner := wp.Key(), spec.Name
			if _, dup := keys[key]; dup {
				panic(fmt.Sprintf("compare: workload %s's key %q is already a key", owner, key))
			}
			keys[key] = func(r *report.Report) (string, any) {
				n := r.Config.Params.Int(key)
				if r.Config.Workload != owner {
					return "", n // another workload's: cost=0 meant nothing
				}
				return strconv.Itoa(n), n
			}
		}
	}
	return keys
}()

// configKeyDefs are the configuration's keys, in the order of
// config.Params.
func configKeyDefs() []keyDef {
	var defs []keyDef
	for _, p := range config.Params {
		if p.Key == "" {
			continue
		}
		get, ok := configKeys[p.Key]
		if !ok {
			panic(fmt.Sprintf("compare: config.Params names the key %q of --%s, which compare cannot read from a result", p.Key, p.Name))
		}
		defs = append(defs, keyDef{p.Name, p.Key, get})
	}
	return defs
}

// ReadKey reads the configuration key json (a config.Param's Key) back
// from r as compare does: its text ("" where it is not set or means nothing
// for r's workload) and its JSON value; "" and nil for a name that is no
// key. sweep lays results out by it, collect sorts them by it.
func ReadKey(r *report.Report, json string) (text string, value any) {
	get, ok := configKeys[json]
	if !ok {
		return "", nil
	}
	return get(r)
}

// workloadKey is the workload's match key: its name, then the parameters
// of the workload that ran and the waits where there are any, so that
// spin(units=1000) and spin(units=2000) are two configurations while a
// bcrypt result reads "bcrypt" as it always has.
func workloadKey(r *report.Report) (string, any) {
	c := r.Config
	var ps []string
	if spec, err := decl.Lookup(c.Workload); err == nil {
		ps = spec.KeyOf(c)
	}
	if c.SleepMs > 0 {
		ps = append(ps, fmt.Sprintf("sleep=%v", time.Duration(c.SleepMs*float64(time.Millisecond))),
			"sleep-every="+strconv.Itoa(c.SleepEvery), "slow-workers="+strconv.Itoa(c.SlowWorkers))
	}
	if len(ps) == 0 {
		return c.Workload, c.Workload
	}
	k := c.Workload + "(" + strings.Join(ps, ",") + ")"
	return k, k
}

// gomaxprocsKey is GOMAXPROCS as the workload ran with it.
func gomaxprocsKey(r *report.Report) (string, any) {
	if alone(r) && r.Config.GOMAXPROCSPolicy == "runtime" {
		// Not set for the command: the number is only this
		// machine's CPUs, not part of what ran.
		return "", r.Config.GOMAXPROCS
	}
	return strconv.Itoa(r.Config.GOMAXPROCS), r.Config.GOMAXPROCS
}

// alone says whether r's workload runs alone, one process per iteration
// (the command): the closed loop's batch and workers are always 1 there.
func alone(r *report.Report) bool {
	spec, err := decl.Lookup(r.Config.Workload)
	return err == nil && spec.Alone
}

// loopKey is the key of a closed-loop knob (batch, workers): its number,
// or "" (not shown, as compare leaves out a key not set) for a command,
// where it is always 1 and means nothing. The value stays, so that
// compare's JSON keeps its keys.
func loopKey(get func(report.Config) int) keyReader {
	return func(r *report.Report) (string, any) {
		n := get(r.Config)
		if alone(r) {
			return "", n
		}
		return strconv.Itoa(n), n
	}
}

// flagKey is a flag's key text: "true", or "" (not set) for false.
func flagKey(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// keyUs shows microseconds as a Go duration: 100ms, 1.5ms, and 0 as
// "0" (size.go's usText writes 0s).
func keyUs(us int64) string {
	if us == 0 {
		return "0"
	}
	return (time.Duration(us) * time.Microsecond).String()
}
