//go:build linux

package tracer

import (
	"fmt"

	"github.com/cilium/ebpf/btf"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// Probe says whether throttle events can be traced here and, if so, how
// their intervals start and end on this kernel (ends), or why not: it
// checks what New needs that a load alone does not show (the
// sched_switch tracepoint's prev_state argument, 5.18+: before it, raw_tp
// loads and its attach fails), loads the programs (tp_btf, then raw_tp)
// without attaching them, and closes them at once.
func Probe() (ends string, err error) {
	ends, err = probeEnds()
	if err != nil {
		return "", err
	}
	return ends + "; where the kernel lets the tracer hook throttle_cfs_rq and unthrottle_cfs_rq (fexit, else kprobes; " +
		"attached by a traced run only), each hold ends at the unthrottle itself instead, split where an ancestor's " +
		"throttle holds the thread on (throttle_events.hold_ends says which a run used)", nil
}

func probeEnds() (ends string, err error) {
	objs, _, err := load(attachOrder)
	if err != nil {
		return "", err
	}
	objs.Close()
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		return "", fmt.Errorf("tracing throttle events needs the kernel's BTF: %w", err)
	}
	switch endClock(kernel) {
	case "self":
		start := ""
		if hasMember(kernel, "task_struct", "throttled") {
			start = "a thread is held from when it meets the throttle on its way back to user space " +
				"(this kernel throttles threads one by one, task_struct.throttled, 6.18+), and "
		}
		return start + "a held interval ends at the unthrottle (this kernel keeps each run queue's throttled clock, " +
			"cfs_rq.throttled_clock_self, 6.6+), even where a busy CPU runs others first", nil
	case "pelt", "task":
		return "a held interval ends at the unthrottle, read from the clock the run queue keeps for load tracking " +
			"(cfs_rq.throttled_clock_" + endClock(kernel) + ", before 6.6), and no later than when its group next runs " +
			"on that CPU: exact where that clock runs at the CPU's own rate (VMs, CPUs the kernel does not scale by " +
			"frequency); where the kernel scales it, the trace can part from the counter, and the run warns where the " +
			"two part by more than 10%", nil
	}
	return "a held interval ends when its throttled group next runs on that CPU: on a busy machine that is after the " +
		"unthrottle, and the trace comes out above the counter (this kernel keeps no throttled clock per run queue); " +
		"the run warns where the two part by more than 10%", nil
}

// endClock is the run queue's throttled clock an interval's end is read
// from on this kernel: "self" (cfs_rq.throttled_clock_self, on rq_clock,
// 6.6+: exact), "pelt" (throttled_clock_pelt, on rq_clock_pelt, 5.19+),
// "task" (throttled_clock_task, on rq_clock_task, before), or "" (none
// known: ends come from the group's next run alone). The pelt and task
// clocks run at rq_clock's rate where the kernel neither scales PELT by
// frequency nor leaves out IRQ or steal time (the VM: TCG, neither
// configured), and they count the stretch of the queue's whole hierarchy.
func endClock(kernel *btf.Spec) string {
	for _, c := range []string{"self", "pelt", "task"} {
		if hasMember(kernel, "cfs_rq", "throttled_clock_"+c+"_time") {
			return c
		}
	}
	return ""
}

// ExactEnds is whether a held interval ends at the unthrottle itself on
// this kernel, read from its run queue's throttled clock (endClock),
// rather than when the group next runs on that CPU; false where the
// kernel's BTF cannot be read. Tests choose their agreement bounds by it:
// before 6.6 they run where that clock is unscaled (the VM).
func ExactEnds() bool {
	kernel, err := btf.LoadKernelSpec()
	return err == nil && endClock(kernel) != ""
}

// CountsEmptyStretches is whether this kernel's throttled counters
// (cpu.stat's throttled_time, throttled_usec) also count the stretches in
// which no thread of the group was runnable: a thread that used up the
// quota and went to sleep leaves its queue throttled, counted to the
// unthrottle, while no thread waits. The kernel stopped counting them
// ("sched: don't account throttle time for empty groups") in the series
// that added cfs_rq's throttled_clock_self (6.6+), so that is the mark;
// true where the kernel's BTF cannot be read. Where true the program
// traces them (SLEEP) to the group's next run on that CPU (Event.Empty),
// and one whose group never runs there again is missing from the trace.
func CountsEmptyStretches() bool {
	kernel, err := btf.LoadKernelSpec()
	return err != nil || !hasMember(kernel, "cfs_rq", "throttled_clock_self_time")
}

// Model is this kernel's throttle model (throttle.ModelQueue,
// ModelQueueClock or ModelTask), from its BTF; "" where that cannot be
// read.
func Model() string {
	kernel, err := btf.LoadKernelSpec()
	switch {
	case err != nil:
		return ""
	case hasMember(kernel, "task_struct", "throttled"):
		return throttle.ModelTask
	case endClock(kernel) == "self":
		return throttle.ModelQueueClock
	}
	return throttle.ModelQueue
}

// splitsHolds is whether a hold is split at each unthrottle it waited
// through (throttle.Interpreter.SelfClock): where the kernel throttles
// whole queues and keeps each one's throttled clock on rq_clock (6.6 to
// 6.17, Debian's and RHEL 10's 6.12 among them). A kernel that throttles
// threads one by one holds each again at each throttle (a Back and a Hold
// of its own); one without that clock ends a hold at its group's next run.
func splitsHolds() bool {
	kernel, err := btf.LoadKernelSpec()
	return err == nil && endClock(kernel) == "self" && !hasMember(kernel, "task_struct", "throttled")
}

// ExactStarts is whether a hold starts when the thread itself meets the
// throttle on this kernel (it throttles threads one by one, 6.18+), rather
// than when it is switched out or woken while its queue is marked
// throttled; false where the kernel's BTF cannot be read. With ExactEnds
// the trace matches the counter also on a busy machine; tests choose
// their agreement bounds by it.
func ExactStarts() bool {
	kernel, err := btf.LoadKernelSpec()
	return err == nil && hasMember(kernel, "task_struct", "throttled")
}

// hasMember is whether the kernel's struct has the member: what load sets
// the program's read-only task_based and self_clock by (cfs_rq's
// throttled_clock_self_time, 6.6+: intervals end at the unthrottle;
// task_struct's throttled, 6.18+: they start when the thread itself is
// throttled).
func hasMember(kernel *btf.Spec, structName, member string) bool {
	var st *btf.Struct
	if kernel.TypeByName(structName, &st) != nil {
		return false
	}
	for _, m := range st.Members {
		if m.Name == member {
			return true
		}
	}
	return false
}

// switchHasPrevState says whether the kernel's sched_switch tracepoint
// passes prev_state (5.18+: preempt, prev, next, prev_state), which the
// program reads; before, the raw_tp program loads and its attach is
// refused, so the tracer says it cannot trace here rather than fail then.
// The tracepoint's prototype is the kernel's btf_trace_sched_switch: a
// pointer to a function of (void *ctx, the tracepoint's arguments...).
func switchHasPrevState(kernel *btf.Spec) error {
	var td *btf.Typedef
	if err := kernel.TypeByName("btf_trace_sched_switch", &td); err != nil {
		return fmt.Errorf("tracing throttle events: the kernel's BTF has no sched_switch tracepoint (btf_trace_sched_switch): %w", err)
	}
	ptr, ok := td.Type.(*btf.Pointer)
	var proto *btf.FuncProto
	if ok {
		proto, ok = ptr.Target.(*btf.FuncProto)
	}
	if !ok {
		return fmt.Errorf("tracing throttle events: the kernel's sched_switch tracepoint has an unknown prototype (%v)", td.Type)
	}
	if args := len(proto.Params) - 1; args < 4 {
		return fmt.Errorf("tracing throttle events needs a kernel whose sched_switch tracepoint passes prev_state (5.18 or later): "+
			"this one passes %d arguments, not 4", args)
	}
	return nil
}
