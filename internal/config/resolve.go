package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
)

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
