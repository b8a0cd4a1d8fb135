// Package tracer records, from the kernel, what the scheduler did to the
// threads of the traced cgroups while CFS bandwidth throttled them, and
// hands each held interval to a callback as a throttle.Event. It is
// Linux-only; elsewhere Probe and New say so.
//
// What is attached: a BPF program on each of the scheduler's
// sched_switch, sched_wakeup and sched_wakeup_new tracepoints (tp_btf,
// else raw_tp), nothing else. It writes raw records (a thread held on a
// throttled queue, woken onto one, switched back in; a group running
// again on a CPU) into a ring buffer; throttle.Interpreter decides where
// each interval starts and ends. throttle.bpf.c has the details. The
// groups traced are a map the program filters on, which Track and Untrack
// change while it is attached.
//
// Kernels differ in how a throttled stretch shows. Debian's 6.1 (the VM)
// dequeues the cfs_rq at once: one interval per thread per stretch. 6.18
// (our hosts; task-based throttling arrived in 6.18) throttles each task
// on its way back to user space, and a stretch can come as hundreds of
// intervals microseconds apart (the thread switched in for a few
// microseconds, still throttled, then out again): their per-CPU union is
// the stretch, and the count is not the number of stretches, so merge
// before counting.
//
// throttle.bpf.c is compiled by bpf2go into committed Go and objects (`make
// generate`; TestObjectFresh checks the source's hash). New, Track,
// Untrack, Sync and Stop load, attach, change, read and detach through
// cilium/ebpf (session_linux.go; the loading and attaching in
// load_linux.go); Probe is inspect's question, and what the kernel offers
// is read from its BTF (probe_linux.go). It may not pin anything, leave
// a program or link loaded on any path, or decide what the records mean
// (internal/throttle does).
package tracer
