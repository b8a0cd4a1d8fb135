//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
//
// throttle.bpf.c: when were the threads of one cgroup held off a CPU by CFS
// bandwidth throttling? Built on the scheduler's stable sched_switch
// tracepoint only (no kprobes or fentry on throttle_cfs_rq, which some
// kernels refuse and recent ones reworked):
//
//   a thread of the target cgroup is switched out while still runnable
//   (preempted, or prev_state == TASK_RUNNING) and its cfs_rq on this CPU
//   is throttled (->throttled, or ->throttle_count for a throttled
//   ancestor; on 6.16+, which throttles threads one by one, the thread
//   itself: task->throttled)                                     => held
//   from now, by the throttled queue (its own, or the ancestor's whose
//   quota ran out); or it is woken (sched_wakeup) onto a cfs_rq that is
//   throttled, where it waits without having run                 => held
//   from now, on that cfs_rq's CPU;
//   when that thread is switched in again                        => an event
//   ending then, or earlier: at the first switch-in, after its start, of
//   a thread running under the throttled queue again (no longer
//   throttled: a thread held there and switched in later was waiting for
//   the CPU behind the others, not for the quota); and, where the kernel
//   keeps the queue's own throttled clock (throttled_clock_self, 6.8+),
//   at the unthrottle itself, which a busy CPU may run others long after.
//
// The wake-up rule is for kernels that throttle a whole cfs_rq (before
// 6.16): a sleeping worker woken by a request while its group is throttled
// is held off from its wake-up, with no switch-out to see. Kernels with
// task-based throttling (6.16+) let it run in the kernel and throttle it on
// its way back to user space, which the switch-out rule sees; there the
// wake-up rule is off (task_based).
//
// No vmlinux.h: the few kernel structs read are declared below with
// preserve_access_index, so CO-RE relocates their offsets against the
// running kernel's BTF. Every pointer is read with BPF_CORE_READ, so the
// same body serves tp_btf (typed) and raw_tp (untyped) programs.

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

// The map types used, as in the kernel's uapi linux/bpf.h (stable ABI
// numbers), so the build needs no kernel or arch headers.
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_RINGBUF = 27,
};

// And the ring buffer's flags and query, map update flags (uapi
// linux/bpf.h), and the one errno tested (EEXIST, asm-generic/errno-base.h).
enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
	BPF_RB_AVAIL_DATA = 0,
	BPF_NOEXIST = 1,
	EEXIST = 17,
};

// The kernel's types, only the fields read. Names must match the kernel's;
// offsets come from its BTF at load.
struct kernfs_node {
	__u64 id; // the cgroup directory's inode number (64-bit kernels)
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct task_group {
	struct cgroup_subsys_state css;
	struct task_group *parent;
} __attribute__((preserve_access_index));

struct rq {
	int cpu;
	__u64 clock; // rq_clock(): sched_clock, updated at each __schedule
} __attribute__((preserve_access_index));

struct cfs_rq {
	// An int before 6.16's task-based throttling, a 1-bit field after:
	// read with BPF_CORE_READ_BITFIELD_PROBED, which handles both.
	int throttled;
	int throttle_count;
	struct rq *rq; // the CPU's run queue it belongs to
	struct task_group *tg;
	// Since 6.8 (cpu.stat.local's source): when this cfs_rq was last
	// throttled with something queued, on rq_clock, zero while it is not;
	// and the sum of its throttled stretches, added at each unthrottle.
	__u64 throttled_clock_self;
	__u64 throttled_clock_self_time;
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;	     // the queue it is on
	struct sched_entity *parent; // its group's entity, NULL at the top
} __attribute__((preserve_access_index));

struct task_struct {
	int pid; // the thread id
	struct sched_entity se;
	struct task_group *sched_task_group;
	// 6.16+ (task-based throttling): set when the thread, on its way back
	// to user space, is taken off its throttled queue; cleared when the
	// unthrottle puts it back.
	bool throttled;
} __attribute__((preserve_access_index));

// One held interval, as user space decodes it (internal/tracer/decode.go).
// group is the cgroup (kernfs id) whose run queue was throttled: intervals
// of sibling groups on one CPU are separate stretches of separate
// counters, and overlap without being one.
struct event {
	__u32 cpu;
	__u32 tid;
	__u64 start_ns;
	__u64 end_ns;
	__u64 group;
};

// Keeps struct event in the object's BTF, for bpf2go's -type event.
const struct event *unused_event __attribute__((unused));

struct held {
	__u64 start_ns;
	__u64 key;	  // the throttled cfs_rq (its address)
	__u64 group;	  // its cgroup's kernfs id
	__u64 clock;	  // its rq's clock at the start
	__u64 self_clock; // its throttled_clock_self then (6.8+)
	__u64 self_time;  // its throttled_clock_self_time then (6.8+)
	__u32 cpu;
	__u32 pad;
};

// Set by user space before load: the traced cgroup's kernfs id (the inode
// number of its directory). Zero matches nothing.
const volatile __u64 target_cgid = 0;

// What could not be recorded, read by user space at Stop, each a count of
// intervals: lost, events a full ring buffer refused; lost_held, holds the
// held map refused (full, or busy: -EBUSY); lost_marks, marks the marks
// map refused (the held interval then ends when its thread runs);
// marks_overrun, intervals that outlived their run queue's last MARKS
// marks (ended when the thread ran, maybe late); submitted, events sent,
// which user space sets against those it read, for the ones in flight at
// Stop.
__u64 lost = 0;
__u64 lost_held = 0;
__u64 lost_marks = 0;
__u64 marks_overrun = 0;
__u64 submitted = 0;

// Entries in held: while it is zero, a switch-in needs no lookup, so the
// machine's other switches cost next to nothing when the target is not
// throttled.
__u64 nheld = 0;

// Threads held off now, by tid. A plain hash, not an LRU, so that a hold
// it cannot keep is counted (lost_held), not silently evicted: a held
// thread always runs again, if only to exit, and takes its entry off then.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct held);
} held SEC(".maps");

// Per throttled run queue (a cfs_rq, one group's on one CPU, by address):
// when a hold last began on it, and the first switch-in after each hold of
// a thread below it onto a queue no longer throttled (the group running
// there again), the last MARKS of them. An interval held there ends at the
// first of these after its start. Without them, k threads held on one CPU
// through an unthrottle ended one after another as each got its turn on
// the CPU, some only after the next throttle, and their union ran past the
// unthrottle by the others' runs: 7-9% above the counter with four threads
// on one CPU, 4% with four on two. Kept per CPU instead, one group's run
// ended the holds of its siblings on that CPU, still throttled: -87% to
// -94% with six instances each limited on its own (issue 25).
#define MARKS 8 // a power of two: a thread held longer has its end late

struct mark {
	__u64 hold_ns;
	__u64 n; // marks so far; the latest at (n - 1) % MARKS
	__u64 run_ns[MARKS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct mark);
} marks SEC(".maps");

#define MAX_CPUS 4096

// Per CPU, by its number: how many of its run queues in marks had a hold
// with no mark after it. Zero on almost every switch (only the throttled
// group's CPUs, between a hold and the group's next run), it spares the
// others the walk up the switched-in thread's groups.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, __s64);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); // 1 MiB: about 26 thousand events
} events SEC(".maps");

// Deep enough for any real hierarchy (kubepods/burstable/pod/container is 4).
#define MAX_LEVELS 16

// Whether task t is in the target cgroup or below it, in the hierarchy of
// the cpu controller (v1's cpu tree or v2's unified one).
static __always_inline bool in_target(struct task_struct *t)
{
	struct task_group *tg = BPF_CORE_READ(t, sched_task_group);

	for (int i = 0; i < MAX_LEVELS && tg; i++) {
		if (BPF_CORE_READ(tg, css.cgroup, kn, id) == target_cgid)
			return 1;
		tg = BPF_CORE_READ(tg, parent);
	}
	return 0;
}

// Whether this kernel throttles threads one by one (6.16+): a queue out of
// quota is marked throttled at once, but its threads keep running in the
// kernel and are taken off it each on its way back to user space
// (task->throttled); the counter's throttled clock starts with the first
// of them. There a thread switched out, or woken, while its queue is
// marked throttled is not yet held: preempted by another group's thread,
// it waits for the CPU, runs, and is held only when it meets the
// throttle. Holding it from the mark put the trace above the counter on a
// busy machine: +1.8% to +14% with six throttled instances beside two
// busy loops on 6.18 (TestTracePerRequestInstances), the wait for the CPU
// counted as throttled.
static __always_inline bool task_based(void)
{
	return bpf_core_field_exists(((struct task_struct *)0)->throttled);
}

// Whether t's run queue on this CPU is throttled, itself or an ancestor.
static __always_inline bool rq_throttled(struct task_struct *t)
{
	struct cfs_rq *cfs = BPF_CORE_READ(t, se.cfs_rq);

	if (!cfs)
		return 0;
	if (bpf_core_field_exists(cfs->throttled) &&
	    BPF_CORE_READ_BITFIELD_PROBED(cfs, throttled))
		return 1;
	if (bpf_core_field_exists(cfs->throttle_count) &&
	    BPF_CORE_READ(cfs, throttle_count))
		return 1;
	return 0;
}

// throttled_cfs is the run queue that holds t: the first of its queues,
// going up its groups, that is throttled itself (its own quota ran out),
// or t's own queue if none says so.
static __always_inline struct cfs_rq *throttled_cfs(struct task_struct *t)
{
	struct cfs_rq *leaf = BPF_CORE_READ(t, se.cfs_rq);
	struct cfs_rq *cfs = leaf;
	struct sched_entity *se = BPF_CORE_READ(t, se.parent);

	for (int i = 0; i < MAX_LEVELS && cfs; i++) {
		if (BPF_CORE_READ_BITFIELD_PROBED(cfs, throttled))
			return cfs;
		if (!se)
			break;
		cfs = BPF_CORE_READ(se, cfs_rq);
		se = BPF_CORE_READ(se, parent);
	}
	return leaf;
}

static __always_inline bool is_pending(struct mark *m)
{
	return m->n == 0 || m->run_ns[(m->n - 1) & (MARKS - 1)] <= m->hold_ns;
}

static __always_inline void add_pending(__u32 cpu, __s64 d)
{
	__s64 *p = bpf_map_lookup_elem(&pending, &cpu);

	if (p)
		__sync_fetch_and_add(p, d);
}

// hold records that thread tid began to be held at now, by its throttled
// run queue cfs on cpu.
static __always_inline void hold(__u32 tid, struct cfs_rq *cfs, __u32 cpu, __u64 now)
{
	__u64 key = (__u64)cfs;
	struct held v = {
		.start_ns = now,
		.key = key,
		.group = BPF_CORE_READ(cfs, tg, css.cgroup, kn, id),
		.clock = BPF_CORE_READ(cfs, rq, clock),
		.cpu = cpu,
	};
	if (bpf_core_field_exists(cfs->throttled_clock_self_time)) {
		v.self_clock = BPF_CORE_READ(cfs, throttled_clock_self);
		v.self_time = BPF_CORE_READ(cfs, throttled_clock_self_time);
	}

	struct mark *m = bpf_map_lookup_elem(&marks, &key);
	if (m) {
		if (!is_pending(m))
			add_pending(cpu, 1);
		m->hold_ns = now;
	} else {
		struct mark z = { .hold_ns = now };
		long err = bpf_map_update_elem(&marks, &key, &z, BPF_NOEXIST);
		if (err == 0)
			add_pending(cpu, 1);
		else if (err != -EEXIST)
			__sync_fetch_and_add(&lost_marks, 1);
	}

	long err = bpf_map_update_elem(&held, &tid, &v, BPF_NOEXIST);
	if (err == 0)
		__sync_fetch_and_add(&nheld, 1);
	else if (err != -EEXIST) // already held: the first start stands
		__sync_fetch_and_add(&lost_held, 1);
}

// held_end is when the interval h, of a thread switched in at now, ended:
// at the first mark on its run queue after its start (the group ran
// there again) and, where the kernel keeps the queue's own throttled clock
// (6.8+), at the unthrottle itself: a thread that then waited for a CPU
// busy with others was no longer throttled.
static __always_inline __u64 held_end(struct held *h, __u64 now)
{
	__u64 end = now;
	__u64 key = h->key;
	struct mark *m = bpf_map_lookup_elem(&marks, &key);

	if (m) {
		for (int i = 0; i < MARKS; i++) {
			__u64 r = m->run_ns[i];
			if (r > h->start_ns && r < end)
				end = r;
		}
		// The oldest mark kept is after the start: an earlier one
		// may have been overwritten, and the end be late.
		if (m->n > MARKS && m->run_ns[m->n & (MARKS - 1)] > h->start_ns)
			__sync_fetch_and_add(&marks_overrun, 1);
	}

	struct cfs_rq *cfs = (struct cfs_rq *)key;
	if (bpf_core_field_exists(cfs->throttled_clock_self_time) && h->self_clock && h->clock) {
		__u64 t = BPF_CORE_READ(cfs, throttled_clock_self_time);
		// An unthrottle since the start: the stretch, begun at
		// self_clock, ended (t - self_time) later, on rq_clock.
		__u64 unthrottled = h->self_clock + (t - h->self_time);
		if (t > h->self_time && unthrottled > h->clock) {
			__u64 e = h->start_ns + (unthrottled - h->clock);
			if (e < end)
				end = e;
		}
	}
	return end;
}

// run_again marks, on this CPU, the run queues of next's groups that had a
// hold and no mark since: next, not throttled, runs in all of them.
static __always_inline void run_again(struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__s64 *p = bpf_map_lookup_elem(&pending, &cpu);

	if (!p || *p <= 0 || rq_throttled(next))
		return;
	struct cfs_rq *cfs = BPF_CORE_READ(next, se.cfs_rq);
	struct sched_entity *se = BPF_CORE_READ(next, se.parent);
	__u64 now = 0;
	// The top queue (se NULL) is the CPU's root: never throttled.
	for (int i = 0; i < MAX_LEVELS && cfs && se; i++) {
		__u64 key = (__u64)cfs;
		struct mark *m = bpf_map_lookup_elem(&marks, &key);
		if (m && is_pending(m)) {
			if (!now)
				now = bpf_ktime_get_ns();
			m->run_ns[m->n & (MARKS - 1)] = now;
			m->n++;
			__sync_fetch_and_add(p, -1);
		}
		cfs = BPF_CORE_READ(se, cfs_rq);
		se = BPF_CORE_READ(se, parent);
	}
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	__u32 tid;

	// Every switch on the machine runs this: the common path is two
	// tests, and a lookup that misses while some thread is held; the
	// clock is read only when needed.

	// The end of a held interval: the thread runs again. The map holds
	// only the target's held threads.
	struct held *h = 0;
	if (nheld) {
		tid = BPF_CORE_READ(next, pid);
		h = bpf_map_lookup_elem(&held, &tid);
	}
	if (h) {
		__u64 now = bpf_ktime_get_ns();
		struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (e) {
			e->cpu = h->cpu;
			e->tid = tid;
			e->start_ns = h->start_ns;
			e->end_ns = held_end(h, now);
			e->group = h->group;
			// No wake-up of the reader for each event: it reads every
			// 100 ms anyway, and a wake-up is a context switch of
			// its own, on a machine that may be busy throttling. Only
			// a buffer a quarter full wakes it, long before any loss.
			__u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > (1 << 18) ?
					      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
			bpf_ringbuf_submit(e, flags);
			__sync_fetch_and_add(&submitted, 1);
		} else {
			__sync_fetch_and_add(&lost, 1);
		}
		if (bpf_map_delete_elem(&held, &tid) == 0)
			__sync_fetch_and_sub(&nheld, 1);
	}

	// The group runs on this CPU again: the first such switch-in since
	// the latest hold on one of its run queues is marked, and ends the
	// intervals of the threads held there before it (above, when each
	// is switched in). Looked at only while this CPU has a hold with no
	// mark after it: no walk up the cgroup tree.
	if (nheld)
		run_again(next);

	// The start: still runnable (preempted, whatever its state says, or
	// switched out in state 0, not sleeping), throttled (the thread
	// itself where the kernel throttles threads, else its run queue),
	// and only then the walk up the cgroup tree, the costly test.
	if (!preempt && prev_state != 0)
		return 0;
	if (task_based()) {
		if (!BPF_CORE_READ(prev, throttled))
			return 0;
	} else if (!rq_throttled(prev)) {
		return 0;
	}
	if (!in_target(prev))
		return 0;
	hold(BPF_CORE_READ(prev, pid), throttled_cfs(prev), bpf_get_smp_processor_id(), bpf_ktime_get_ns());
	return 0;
}

// on_wakeup holds a thread of the target woken onto a throttled cfs_rq:
// it waits there, runnable, until the group is unthrottled. Not where the
// kernel throttles threads one by one (task_based): there the woken
// thread runs in the kernel first, and the switch-out rule sees it held.
static __always_inline int on_wakeup(struct task_struct *p)
{
	if (task_based() || !rq_throttled(p) || !in_target(p))
		return 0;
	struct cfs_rq *cfs = throttled_cfs(p);
	hold(BPF_CORE_READ(p, pid), cfs, BPF_CORE_READ(cfs, rq, cpu), bpf_ktime_get_ns());
	return 0;
}

// BTF-typed tracepoint: preferred (checked arguments, cheaper entry). Its
// prev_state argument came in 5.18: before, the tracer says it cannot
// trace (Probe, from the tracepoint's prototype in the kernel's BTF).
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state);
}

// Raw tracepoint: the same logic for kernels that refuse tp_btf.
SEC("raw_tp/sched_switch")
int BPF_PROG(sched_switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup_btf, struct task_struct *p)
{
	return on_wakeup(p);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(sched_wakeup_raw, struct task_struct *p)
{
	return on_wakeup(p);
}

// For the benchmark only (BenchmarkRingBuffer), never attached: run through
// BPF_PROG_TEST_RUN, it pushes 256 events through the ring buffer exactly
// as on_switch does, to measure what the path sustains.
SEC("raw_tp/sched_switch")
int bench_emit(void *ctx)
{
	for (int i = 0; i < 256; i++) {
		struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			__sync_fetch_and_add(&lost, 1);
			continue;
		}
		e->cpu = bpf_get_smp_processor_id();
		e->tid = i;
		e->start_ns = bpf_ktime_get_ns();
		e->end_ns = e->start_ns + 1;
		e->group = 0;
		bpf_ringbuf_submit(e, 0);
	}
	return 0;
}

// GPL-compatible: bpf_probe_read_kernel, behind BPF_CORE_READ, is GPL-only.
char LICENSE[] SEC("license") = "Dual MIT/GPL";
