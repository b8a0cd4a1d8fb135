package options

import (
	"fmt"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
)

// Mode is one case of a command whose flags it shares with the others.
type Mode string

// The modes that refuse flags.
const (
	// LatencyBuiltIn: latency without --target.
	LatencyBuiltIn Mode = "latency without --target"
	// LatencyNoInstances: latency without --instances (checked after
	// --target's flags).
	LatencyNoInstances Mode = "latency without --instances"
	// LatencyTarget and LatencyServe: latency --target, without and with
	// --serve: the parameters the server's work makes meaningless.
	LatencyTarget Mode = "latency --target"
	LatencyServe  Mode = "latency --target --serve"
	// LatencyAttached: latency --target without --serve, once the target
	// itself is checked: what only a slice of ours would use.
	LatencyAttached Mode = "latency --target without --serve, after the target"
	// SweepHere: sweep without --emit.
	SweepHere Mode = "sweep without --emit"
	// SweepEmit and SweepSonobuoy: sweep --emit, and --emit sonobuoy.
	SweepEmit     Mode = "sweep --emit"
	SweepSonobuoy Mode = "sweep --emit sonobuoy"
	// SweepFrom: sweep --from, which keeps only how results are shown.
	SweepFrom Mode = "sweep --from"
	// SizeSearch: size, which searches the limit; SizeOpen: size on the open
	// loop (an open-loop parameter given).
	SizeSearch Mode = "size"
	SizeOpen   Mode = "size on the open loop"
)

// Rule refuses Flags, in that order, or, where Keep is set instead, every
// flag given but those. Why is the line: a format given the flag's name
// (%[1]s) and its value as given (%[2]q).
type Rule struct {
	Flags []string
	Keep  []string
	Why   string
}

// TargetOnly are the flags that mean nothing without --target.
var TargetOnly = []string{"serve", "serve-ready", "connections", "request-timeout", "method", "header", "body", "accept-status", "max-failures"}

// TargetParams are the configuration parameters that apply to requests
// sent to a target: the schedule's; the limits too, with --serve.
var TargetParams = []string{"rate", "arrivals", "on", "off", "count", "duration", "seed"}

// EmitOnly are the flags that mean something only with --emit.
var EmitOnly = []string{"image", "pod-memory", "ttl", "job-deadline", "sweep-id", "node-selector", "per-node", "nodes", "nodes-from"}

// Table is the one table: per mode, what it refuses, in the order checked.
var Table = map[Mode][]Rule{
	LatencyBuiltIn:     {{Flags: TargetOnly, Why: "--%[1]s applies only with --target URL"}},
	LatencyNoInstances: {{Flags: []string{"summary"}, Why: "--summary applies only with --instances: it leaves out their requests[]"}},
	LatencyTarget:      targetRules(false),
	LatencyServe:       targetRules(true),
	LatencyAttached:    {{Flags: []string{"serve-ready", "parent", "cgroup-driver"}, Why: "--%[1]s applies with --target only to --serve's server (it creates a slice)"}},
	SweepHere:          {{Flags: EmitOnly, Why: "--%[1]s applies only with --emit (kubernetes or sonobuoy): the sweep runs here otherwise"}},
	SweepEmit: {
		{Flags: []string{"period"}, Why: emitted + "a pod's CFS period is the kubelet's (cpuCFSQuotaPeriod, 100ms by default), the same for every pod on the node; drop --period, or set cpuCFSQuotaPeriod in the kubelet's configuration"},
		{Flags: []string{"quota"}, Why: emitted + "a pod's quota is its CPU limit × the kubelet's period; give the limit as --cpus"},
		{Flags: []string{"burst"}, Why: emitted + "a pod has no CFS burst setting (the kubelet leaves cpu.cfs_burst_us and cpu.max.burst at 0); drop --burst, or measure burst on a host with sweep --burst"},
		{Flags: []string{"cpuset"}, Why: emitted + "a pod's CPUs are the kubelet's CPU manager's (its static policy gives whole CPUs to Guaranteed pods); drop --cpuset"},
		{Flags: []string{"parent"}, Why: emitted + "each pod measures its own container's cgroup (--cgroup current); drop --parent"},
		{Flags: []string{"plot"}, Why: emitted + "nothing runs here; plot the collected results instead: throttlebench sweep --from results.json --plot FILE"},
		{Flags: []string{"format"}, Why: emitted + "the pods always write JSON, for collect; format the collected results instead: throttlebench sweep --from results.json --format FORMAT"},
		{Flags: []string{"columns"}, Why: emitted + "the pods always write JSON, for collect; choose the columns of the collected results instead: throttlebench sweep --from results.json --columns LIST"},
	},
	SweepSonobuoy: {
		{Flags: []string{"per-node", "nodes", "nodes-from"}, Why: "--%[1]s applies to --emit kubernetes: a Sonobuoy DaemonSet plugin runs on every node already; choose the nodes with --node-selector"},
		{Flags: []string{"ttl"}, Why: "--ttl applies to --emit kubernetes: Sonobuoy deletes its plugins' pods itself (sonobuoy delete)"},
		{Flags: []string{"job-deadline"}, Why: "--job-deadline applies to --emit kubernetes: a Sonobuoy plugin's time is sonobuoy run's --timeout"},
	},
	SweepFrom: {{Keep: []string{"from", "format", "output", "plot", "quiet", "columns"},
		Why: "--%[1]s %[2]q cannot be used with --from: it shows results read from a file and runs nothing"}},
	SizeSearch: {
		{Flags: []string{"cpus", "quota"}, Why: "--%[1]s %[2]q is what size searches: give the range as --cpus-min and --cpus-max"},
		{Flags: []string{"duration", "iterations"}, Why: "--%[1]s %[2]q is a window's length in size: give it as --window"},
		{Flags: []string{"instances", "count", "concurrency", "init", "init-memory"}, Why: "--%[1]s %[2]q applies to latency --instances, which size does not run"},
	},
	SizeOpen: {{Flags: only(config.Batch, config.Latency), Why: "--%[1]s %[2]q is the closed loop's, and an open-loop parameter (--rate, --work, …) makes size measure the open loop: give one loop's parameters"}},
}

// only are the parameters of cmd that other does not take, in
// config.Params' order.
func only(cmd, other config.Command) []string {
	var names []string
	for _, p := range config.ParamsFor(cmd) {
		if !p.In(other) {
			names = append(names, p.Name)
		}
	}
	return names
}

// OpenOnly are the open loop's own parameters: one given makes size
// measure the open loop.
func OpenOnly() []string { return only(config.Latency, config.Batch) }

// emitted begins a refusal of what a pod cannot express.
const emitted = "--%[1]s %[2]q cannot be emitted: "

// targetRules refuse, with --target, the parameters that are not the
// schedule's, in config.Params' order: the limits and --gomaxprocs only
// without --serve (a server already running is measured in the limits and
// the environment it has; --serve's gets GOMAXPROCS in its environment,
// as a command after -- does), the workload's always; then --summary,
// which is --instances'.
func targetRules(serve bool) []Rule {
	var rules []Rule
	for _, p := range config.ParamsFor(config.Latency) {
		switch {
		case slices.Contains(TargetParams, p.Name), p.Limit && serve, p.Name == "gomaxprocs" && serve:
		case p.Name == "gomaxprocs":
			rules = append(rules, Rule{Flags: []string{p.Name}, Why: "--%[1]s applies with --target only to --serve's server (its environment's GOMAXPROCS): a server already running keeps its own"})
		case p.Limit:
			rules = append(rules, Rule{Flags: []string{p.Name}, Why: "--%[1]s cannot be used with --target without --serve: a server already running is measured in the limits it has, and its cgroup is never written"})
		default:
			rules = append(rules, Rule{Flags: []string{p.Name}, Why: "--%[1]s applies to the built-in workload, not to --target: the server does the work"})
		}
	}
	return append(rules, Rule{Flags: []string{"summary"}, Why: "--summary applies only with --instances, not with --target"})
}

// Given is what the user gave.
type Given struct {
	Changed func(name string) bool
	// Value is a flag's value as given, for the line (nil: none needed).
	Value func(name string) string
	// Names are the flags given in the order they are visited (by name),
	// for a rule that keeps only some.
	Names []string
}

// Refuse is the first refusal of m's rules among the flags given; nil
// where it refuses none of them.
func Refuse(m Mode, g Given) error {
	rules, ok := Table[m]
	if !ok {
		panic(fmt.Sprintf("modes: no mode %q", m))
	}
	refuse := func(r Rule, name string) error {
		if !strings.Contains(r.Why, "%[") {
			return badinput.Errorf(name, "%s", r.Why)
		}
		value := ""
		if g.Value != nil {
			value = g.Value(name)
		}
		return badinput.Errorf(name, r.Why, name, value)
	}
	for _, r := range rules {
		if r.Keep != nil {
			for _, name := range g.Names {
				if !slices.Contains(r.Keep, name) {
					return refuse(r, name)
				}
			}
			continue
		}
		for _, name := range r.Flags {
			if g.Changed(name) {
				return refuse(r, name)
			}
		}
	}
	return nil
}
