package report

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Warning is one thing that makes a result's numbers weak: its kind, for
// code and scripts to act on, and its text, for people. Nothing reads the
// text's words; a rule that treats one warning apart checks its kind.
type Warning struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Side is set on an input's warning that compare carries into its own:
	// "old" or "new". The kind stays the input's.
	Side string `json:"side,omitempty"`
}

// Warn is a warning of kind, its text formatted as fmt.Sprintf does.
func Warn(kind, format string, args ...any) Warning {
	return Warning{Kind: kind, Text: fmt.Sprintf(format, args...)}
}

// String is the text: what every text output prints.
func (w Warning) String() string { return w.Text }

// UnmarshalJSON reads a warning as written now, an object, or as results
// before kinds wrote it, a plain string: that one's kind is KindUnknown.
func (w *Warning) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil // as encoding/json leaves a value it reads null into
	}
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*w = Warning{Kind: KindUnknown, Text: s}
		return nil
	}
	type plain Warning // without this method
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("a warning is an object with kind and text, or a string: %w", err)
	}
	*w = Warning(p)
	if w.Kind == "" {
		w.Kind = KindUnknown
	}
	return nil
}

// Texts are the warnings' texts, in order, for the renderers that show
// them as lines or table notes.
func Texts(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return out
}

// HasKind says whether ws holds a warning of kind.
func HasKind(ws []Warning, kind string) bool {
	for _, w := range ws {
		if w.Kind == kind {
			return true
		}
	}
	return false
}

// Of makes warnings of one kind from texts found where no rule decides the
// kind (what tidying a parent found, the tracer's own findings).
func Of(kind string, texts ...string) []Warning {
	out := make([]Warning, len(texts))
	for i, t := range texts {
		out[i] = Warning{Kind: kind, Text: t}
	}
	return out
}

// The kinds of warning. Each rule has one; a reader acts on the kind.
// Kinds lists them all with what each means (docs/README.md's table is
// checked against it).
const (
	KindBusyMachine          = "busy_machine"
	KindCgroupOthers         = "cgroup_others"
	KindUnusedQuota          = "unused_quota"
	KindFewPeriods           = "few_periods"
	KindShortIterations      = "short_iterations"
	KindFewIterations        = "few_iterations"
	KindGOMAXPROCS           = "gomaxprocs_below_workers"
	KindWorkerMoved          = "worker_moved"
	KindCurrentCgroup        = "current_cgroup"
	KindLeftovers            = "leftovers"
	KindKilled               = "killed"
	KindSliceLeft            = "slice_left"
	KindFewRequests          = "few_requests"
	KindNoP999Interval       = "no_p999_interval"
	KindWideInterval         = "wide_interval"
	KindDroppedRequests      = "dropped_requests"
	KindOverload             = "overload"
	KindLateDispatch         = "late_dispatch"
	KindLateDispatcher       = "late_dispatcher"
	KindNearFloor            = "near_floor"
	KindNoFloor              = "no_floor"
	KindNoPeak               = "no_peak"
	KindNoCounters           = "no_counters"
	KindFailedRun            = "failed_run"
	KindFailedRequests       = "failed_requests"
	KindServerExited         = "server_exited"
	KindNothingServed        = "nothing_served"
	KindFailedColdStarts     = "failed_cold_starts"
	KindInstancesOverMachine = "instances_beyond_machine"
	KindCPUUnknown           = "cpu_unknown"
	KindTraceIncomplete      = "trace_incomplete"
	KindTraceDisagrees       = "trace_disagrees"
	KindTraceUnchecked       = "trace_unchecked"
	KindTraceUpperBound      = "trace_upper_bound"
	KindWholeMachine         = "whole_machine"
	KindNoLimitToAdvise      = "no_limit_to_advise"
	KindWindowsRefused       = "windows_refused"
	KindBaseContention       = "base_contention"
	KindSearchUnsure         = "search_unsure"
	KindNoLevelPassed        = "no_level_passed"
	KindBracketOpen          = "bracket_open"
	KindBoundUnit            = "bound_unit"
	KindBurstSkipped         = "burst_skipped"
	KindRuleUnmeasured       = "rule_unmeasured"
	KindPlotNotDrawn         = "plot_not_drawn"
	KindNoBenchmark          = "no_benchmark"
	KindMachinesDiffer       = "machines_differ"
	KindNothingCompared      = "nothing_compared"
	KindUnpaired             = "unpaired"
	KindNoIterations         = "no_iterations"
	KindUnknownMatchKey      = "unknown_match_key"
	KindQuestionsDiffer      = "questions_differ"
	KindSearchStopped        = "search_stopped"
	KindUnknown              = "unknown"
)

// KindInfo is a kind and what it tells a reader: what is weak, and where
// the kind comes from.
type KindInfo struct {
	Kind, Means string
}

// Kinds is the one table of warning kinds.
var Kinds = []KindInfo{
	{KindBusyMachine, "other work held the CPUs the measured work wanted: durations, response times or a size's windows come out high (the contention block says how much)"},
	{KindCgroupOthers, "other processes in the measured cgroup (current mode) used its CPU, its quota and its counters"},
	{KindUnusedQuota, "throttled while the quota went unused: the kernel's doing (per-CPU slices expiring, fixed in 5.4), not the limit's"},
	{KindFewPeriods, "the window spans fewer than 10 CFS periods: where it falls in a period moves its total"},
	{KindShortIterations, "an iteration needs less CPU than a period's quota: the median shows the unthrottled speed"},
	{KindFewIterations, "too few iterations on a side for compare's U test to reach its alpha"},
	{KindGOMAXPROCS, "GOMAXPROCS is below --workers: workers take turns even without a limit"},
	{KindWorkerMoved, "the lone worker changed OS threads: some iterations' counters are the whole process's"},
	{KindCurrentCgroup, "no slice could be made: the run measured the current cgroup and its limits"},
	{KindLeftovers, "slices or scopes of runs that no longer live were found, and removed or left alone"},
	{KindKilled, "a measured command left processes behind: killed so that its slice could be removed"},
	{KindSliceLeft, "a slice could not be removed after the run (throttlebench cleanup removes it)"},
	{KindFewRequests, "too few requests (or windows) for a percentile's 95% interval"},
	{KindNoP999Interval, "too few requests for p99.9's 95% interval: it is the max or next to it"},
	{KindWideInterval, "a percentile's 95% interval spans more than half of it: too uncertain to act on"},
	{KindDroppedRequests, "requests found the queue full and were not served"},
	{KindOverload, "the requests ask for more CPU than allowed: latencies grow with the duration"},
	{KindLateDispatch, "requests were dispatched well after their scheduled arrival (the worker was throttled or preempted)"},
	{KindLateDispatcher, "the dispatcher handled requests late (the parent, outside the slices, was preempted)"},
	{KindNearFloor, "a figure (or a size's bound) is within a few times the harness's own floor"},
	{KindNoFloor, "the harness's floor could not be measured"},
	{KindNoPeak, "no 100 ms peak: the window was too short, or its counter unread"},
	{KindNoCounters, "latency --target without the server's cgroup: no throttling, CPU usage or trace"},
	{KindFailedRun, "a --target run failed by its --max-failures rule"},
	{KindFailedRequests, "some requests failed, within --max-failures: the percentiles cover them too, or served ones only"},
	{KindServerExited, "the --serve server exited during the run"},
	{KindNothingServed, "no request of the configuration was served: its figures are 0"},
	{KindFailedColdStarts, "instances never became ready; the requests that waited for them failed"},
	{KindInstancesOverMachine, "the instances' shares add up to more CPUs than the machine has"},
	{KindCPUUnknown, "some instances' CPU time could not be read: cpu_ms sums the others"},
	{KindTraceIncomplete, "throttle events were not traced, lost or not kept: the trace misses some"},
	{KindTraceDisagrees, "a group's traced throttle time and its cpu.stat counter part: the counter is the measure"},
	{KindTraceUnchecked, "traced throttle time that no counter could check"},
	{KindTraceUpperBound, "this kernel lets the tracer see no unthrottle: a hold ends no later than its group's next run, an upper bound"},
	{KindWholeMachine, "the cgroup sampled is the whole machine: the usage and advice are not one service's"},
	{KindNoLimitToAdvise, "the sample used no CPU: there is no limit to advise"},
	{KindWindowsRefused, "size refused windows whose work waited for CPUs others held"},
	{KindBaseContention, "size's unlimited arm and its levels waited for other work differently: the relative bound's base is off"},
	{KindSearchUnsure, "size's search cannot be sure: too few windows per level, levels that contradict, a level that drifted"},
	{KindNoLevelPassed, "no level of size's grid passed: the recommendation is no limit"},
	{KindBracketOpen, "size's search bracket is open at one end: every level passed, or none did"},
	{KindBoundUnit, "size's bound looks like the wrong unit"},
	{KindBurstSkipped, "a --burst was above some levels' quota: those were not searched"},
	{KindRuleUnmeasured, "a usage rule's limit was not measured before size's search stopped"},
	{KindPlotNotDrawn, "the --plot was not drawn: nothing to draw"},
	{KindNoBenchmark, "a format CI tools read holds no benchmark: the result has no figure for it"},
	{KindMachinesDiffer, "compare: the two sides' machines were loaded differently; a wall time change may be theirs"},
	{KindNothingCompared, "compare: no configuration is on both sides"},
	{KindUnpaired, "compare: some configurations are on one side only and were not compared"},
	{KindNoIterations, "compare: a side without iterations cannot be compared"},
	{KindUnknownMatchKey, "compare: a --match key it does not know was ignored"},
	{KindQuestionsDiffer, "compare of size results: the two searches asked different questions"},
	{KindSearchStopped, "a size search stopped before it ended (its budget, Ctrl-C, an error): its answer is so far"},
	{KindUnknown, "a warning of a result written before warnings had kinds"},
}
