//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
//
// throttle.bpf.c: when were the threads of one cgroup held off a CPU by CFS
// bandwidth throttling? Built on the scheduler's stable sched_switch
// tracepoint only (no kprobes or fentry on throttle_cfs_rq, which some
// kernels refuse and recent ones reworked):
//
//   a thread of the target cgroup is switched out while still runnable
//   (prev_state == TASK_RUNNING) and its cfs_rq on this CPU is throttled
//   (->throttled, or ->throttle_count for a throttled ancestor)  => held
//   from now; or it is woken (sched_wakeup) onto a cfs_rq that is
//   throttled, where it waits without having run                 => held
//   from now, on that cfs_rq's CPU;
//   when that thread is switched in again                        => an event
//   ending then, or earlier: at the first switch-in on the held CPU after
//   its start of a thread of the target onto a run queue no longer
//   throttled (the group runs there again: a thread held there and
//   switched in later was waiting for the CPU behind the others, not for
//   the quota)
//
// The wake-up rule matters on kernels that throttle a whole cfs_rq (before
// 6.16): a sleeping worker woken by a request while its group is throttled
// is held off from its wake-up, with no switch-out to see. Kernels with
// task-based throttling (6.16+) let it run in the kernel and throttle it on
// its way back to user space, which the switch-out rule sees.
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

// The three map types used, as in the kernel's uapi linux/bpf.h (stable ABI
// numbers), so the build needs no kernel or arch headers.
enum bpf_map_type {
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};

// And the ring buffer's flags and query (uapi linux/bpf.h).
enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
	BPF_RB_AVAIL_DATA = 0,
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
} __attribute__((preserve_access_index));

struct cfs_rq {
	// An int before 6.16's task-based throttling, a 1-bit field after:
	// read with BPF_CORE_READ_BITFIELD_PROBED, which handles both.
	int throttled;
	int throttle_count;
	struct rq *rq; // the CPU's run queue it belongs to
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid; // the thread id
	struct sched_entity se;
	struct task_group *sched_task_group;
} __attribute__((preserve_access_index));

// One held interval, as user space decodes it (internal/tracer/decode.go).
struct event {
	__u32 cpu;
	__u32 tid;
	__u64 start_ns;
	__u64 end_ns;
};

// Keeps struct event in the object's BTF, for bpf2go's -type event.
const struct event *unused_event __attribute__((unused));

struct held {
	__u64 start_ns;
	__u32 cpu;
	__u32 pad;
};

// Set by user space before load: the traced cgroup's kernfs id (the inode
// number of its directory). Zero matches nothing.
const volatile __u64 target_cgid = 0;

// Events lost to a full ring buffer; user space reads it at Stop.
__u64 lost = 0;

// Entries in held, or more (an entry the LRU evicted is never taken off):
// while it is zero, a switch-in needs no lookup, so the machine's other
// switches cost next to nothing when the target is not throttled.
__u64 nheld = 0;

// Threads held off now, by tid. LRU so a thread that exits while held
// (and so never runs again) cannot fill the map.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct held);
} held SEC(".maps");

// Per CPU, by its number: when a hold last began there, and the first
// switch-in there after each hold of a thread of the target onto a run
// queue that is not throttled (the group running there again), the last
// MARKS of them. An interval held there ends at the first of these after
// its start. Without them, k threads held on one CPU through an unthrottle
// ended one after another as each got its turn on the CPU, some only
// after the next throttle, and their union ran past the unthrottle by the
// others' runs: 7-9% above the counter with four threads on one CPU, 4%
// with four on two.
#define MARKS 8 // a power of two: a thread held longer has its end late

struct cpu_mark {
	__u64 hold_ns;
	__u64 n; // marks so far; the latest at (n - 1) % MARKS
	__u64 run_ns[MARKS];
};

#define MAX_CPUS 4096

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, struct cpu_mark);
} marks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); // 1 MiB: about 32 thousand events
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

// mark_hold notes that a hold began on cpu at now.
static __always_inline void mark_hold(__u32 cpu, __u64 now)
{
	struct cpu_mark *m = bpf_map_lookup_elem(&marks, &cpu);

	if (m)
		m->hold_ns = now;
}

static __always_inline int on_switch(struct task_struct *prev,
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
		__u64 end = bpf_ktime_get_ns();
		__u32 cpu = h->cpu;
		struct cpu_mark *m = bpf_map_lookup_elem(&marks, &cpu);
		if (m) {
			// The first time the group ran there again.
			for (int i = 0; i < MARKS; i++) {
				__u64 r = m->run_ns[i];
				if (r > h->start_ns && r < end)
					end = r;
			}
		}
		struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (e) {
			e->cpu = h->cpu;
			e->tid = tid;
			e->start_ns = h->start_ns;
			e->end_ns = end;
			// No wake-up of the reader for each event: it reads every
			// 100 ms anyway, and a wake-up is a context switch of
			// its own, on a machine that may be busy throttling. Only
			// a buffer a quarter full wakes it, long before any loss.
			__u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > (1 << 18) ?
					      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
			bpf_ringbuf_submit(e, flags);
		} else {
			__sync_fetch_and_add(&lost, 1);
		}
		if (bpf_map_delete_elem(&held, &tid) == 0)
			__sync_fetch_and_sub(&nheld, 1);
	}

	// The group runs on this CPU again: the first such switch-in since
	// the latest hold here is marked, and ends the intervals of the
	// threads held here before it (above, when each is switched in).
	// Looked at only while some thread is held.
	if (nheld && !rq_throttled(next) && in_target(next)) {
		__u32 cpu = bpf_get_smp_processor_id();
		struct cpu_mark *m = bpf_map_lookup_elem(&marks, &cpu);
		if (m && (m->n == 0 || m->run_ns[(m->n - 1) & (MARKS - 1)] <= m->hold_ns)) {
			m->run_ns[m->n & (MARKS - 1)] = bpf_ktime_get_ns();
			m->n++;
		}
	}

	// The start: still runnable (preempted, not sleeping), throttled run
	// queue, and only then the walk up the cgroup tree, the costly test.
	if (prev_state != 0 || !rq_throttled(prev) || !in_target(prev))
		return 0;
	tid = BPF_CORE_READ(prev, pid);
	struct held v = {
		.start_ns = bpf_ktime_get_ns(),
		.cpu = bpf_get_smp_processor_id(),
	};
	mark_hold(v.cpu, v.start_ns);
	if (bpf_map_update_elem(&held, &tid, &v, 1 /* BPF_NOEXIST */) == 0)
		__sync_fetch_and_add(&nheld, 1);
	return 0;
}

// on_wakeup holds a thread of the target woken onto a throttled cfs_rq:
// it waits there, runnable, until the group is unthrottled.
static __always_inline int on_wakeup(struct task_struct *p)
{
	if (!rq_throttled(p) || !in_target(p))
		return 0;
	__u32 tid = BPF_CORE_READ(p, pid);
	struct held v = {
		.start_ns = bpf_ktime_get_ns(),
		.cpu = BPF_CORE_READ(p, se.cfs_rq, rq, cpu),
	};
	mark_hold(v.cpu, v.start_ns);
	if (bpf_map_update_elem(&held, &tid, &v, 1 /* BPF_NOEXIST */) == 0)
		__sync_fetch_and_add(&nheld, 1);
	return 0;
}

// BTF-typed tracepoint: preferred (checked arguments, cheaper entry).
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(prev, next, prev_state);
}

// Raw tracepoint: the same logic for kernels that refuse tp_btf.
SEC("raw_tp/sched_switch")
int BPF_PROG(sched_switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(prev, next, prev_state);
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
		bpf_ringbuf_submit(e, 0);
	}
	return 0;
}

// GPL-compatible: bpf_probe_read_kernel, behind BPF_CORE_READ, is GPL-only.
char LICENSE[] SEC("license") = "Dual MIT/GPL";
