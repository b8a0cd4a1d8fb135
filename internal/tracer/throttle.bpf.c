//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
//
// throttle.bpf.c: what the scheduler did to the threads of the traced
// cgroups while CFS bandwidth throttled them, as raw records; what they
// mean (where a held interval starts and ends) is decided in Go
// (internal/throttle's Interpreter), where it can be tested. Built on the
// scheduler's stable tracepoints (sched_switch, sched_wakeup,
// sched_wakeup_new) and, where the kernel allows them, a hook on each of
// throttle_cfs_rq and unthrottle_cfs_rq (fexit, else kprobes; there is no
// throttle tracepoint), which some kernels refuse: then the tracepoints
// alone, and ends read from the queues' clocks.
//
// Records (struct record):
//   HOLD  a thread of a traced group switched out still runnable while
//         throttled (the thread itself where the kernel throttles threads
//         one by one, else its run queue), with the throttled queue's
//         group, CPU and clocks;
//   WAKE  one woken onto a throttled queue, where it waits without having
//         run (only where the kernel throttles whole queues);
//   BACK  a held thread switched in again, with the same queue's clocks
//         read now (found again from the thread, not from a stored
//         pointer), so that Go sees an unthrottle between the two;
//   SLEEP a thread of a traced group gone to sleep leaving its queue
//         throttled (only before 6.6, whose counter counts the stretch
//         though no thread waits through it);
//   RUN   a traced group running again on a CPU where it had a HOLD or a
//         SLEEP since its last RUN (only before 6.6, and not hooked),
//         with the queue's clocks: the end of a SLEEP's stretch, and a
//         bound on a hold's
//         where the queue's throttled clocks run on a clock that may be
//         scaled, PELT's.
//   THROTTLE
//         a held thread's own queue, or one above it, throttled: a
//         thread still waiting after an unthrottle is held again (one per
//         held thread below the queue);
//   UNTHROTTLE
//         a run queue that holds or held a traced thread (or of a traced
//         group) unthrottled, with the first of its ancestors still
//         throttled itself (next), which holds its threads on. Both only
//         where the hooks attach; then Go ends holds here, and no RUN is
//         written.
//   OFF, ON, WOKEN
//         a thread of a traced group (group: its own) switched out on cpu
//         (next: 1 where it stays runnable, preempted or throttled; 0
//         where it sleeps or blocks), switched in on cpu, or woken (or
//         new) onto cpu's queue: each traced thread's life as
//         on a CPU, waiting for one, or off CPU, from which Go splits a
//         request's time by cause (throttle.Timelines). Only while
//         user space asks for them (states). clock: the thread's id in
//         user space's PID namespace where that is not the root one
//         (pidns), else 0.
//
// Kernel differences are chosen at load through read-only data that user
// space sets (task_based, self_clock, pelt_clock, task_clock), so the
// verifier drops what this kernel does not need, as libbpf-tools does.
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

// The uapi numbers used (linux/bpf.h, asm-generic/errno-base.h): stable
// ABI, so the build needs no kernel or arch headers.
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
	BPF_RB_AVAIL_DATA = 0,
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	EEXIST = 17,
};

// The kernel's types, only the fields read; offsets from its BTF at load.
struct kernfs_node {
	__u64 id; // the cgroup directory's inode number (64-bit kernels)
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct cfs_rq;

struct task_group {
	struct cgroup_subsys_state css;
	struct task_group *parent;
	struct cfs_rq **cfs_rq; // the group's queue on each CPU
} __attribute__((preserve_access_index));

struct rq {
	int cpu;
	__u64 clock; // rq_clock(): sched_clock, updated at each __schedule
	// rq_clock_pelt() is clock_pelt less lost_idle_time (5.19–6.7's
	// throttled clocks run on it), rq_clock_task() is clock_task (before
	// 5.19).
	__u64 clock_pelt;
	unsigned long lost_idle_time;
	__u64 clock_task;
} __attribute__((preserve_access_index));

struct cfs_rq {
	// An int before 6.18's task-based throttling, a 1-bit field after:
	// read with BPF_CORE_READ_BITFIELD_PROBED, which handles both.
	int throttled;
	int throttle_count;
	struct rq *rq;
	struct task_group *tg;
	// 6.6+ (cpu.stat.local's source): when this queue was last throttled,
	// on rq_clock, and the sum of its throttled stretches, added at each
	// unthrottle.
	__u64 throttled_clock_self;
	__u64 throttled_clock_self_time;
	// Before 6.6, the same for the stretch its hierarchy was throttled
	// (itself or an ancestor; the queue that is throttled itself starts
	// it), kept for PELT: on rq_clock_pelt() from 5.19, on
	// rq_clock_task() before.
	__u64 throttled_clock_pelt;
	__u64 throttled_clock_pelt_time;
	__u64 throttled_clock_task;
	__u64 throttled_clock_task_time;
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;	     // the queue it is on
	struct sched_entity *parent; // its group's entity, NULL at the top
} __attribute__((preserve_access_index));

// A thread's ids, one per PID namespace from the root one down to its
// own (level); the array's element is two words on every 64-bit kernel.
struct ns_common {
	unsigned int inum; // the namespace's inode number (/proc/PID/ns/pid)
} __attribute__((preserve_access_index));

struct pid_namespace {
	struct ns_common ns;
} __attribute__((preserve_access_index));

struct upid {
	int nr;
	struct pid_namespace *ns;
};

struct pid {
	unsigned int level;
	struct upid numbers[];
} __attribute__((preserve_access_index));

struct task_struct {
	int pid; // the thread id
	struct pid *thread_pid;
	struct sched_entity se;
	struct task_group *sched_task_group;
	// 6.18+ (task-based throttling): set when the thread, on its way back
	// to user space, is taken off its throttled queue.
	bool throttled;
} __attribute__((preserve_access_index));

// What each record says (internal/tracer/decode.go reads it).
enum kind {
	HOLD = 1,
	WAKE = 2,
	BACK = 3,
	RUN = 4,
	SLEEP = 5,
	THROTTLE = 6,
	UNTHROTTLE = 7,
	OFF = 8,
	ON = 9,
	WOKEN = 10,
};

struct record {
	__u32 kind;
	__u32 cpu;    // the throttled queue's CPU (RUN: where the group ran)
	__u32 tid;    // the thread (RUN: the one that ran)
	__u32 on_cpu; // where this was recorded (BACK: the CPU it runs on)
	__u64 time_ns;
	__u64 group; // the throttled queue's cgroup (kernfs id)
	// That queue's throttled clocks, where it began and their sum, and its
	// CPU's clock they run on: throttled_clock_self and _self_time on
	// rq_clock (6.6+), else throttled_clock_pelt and _pelt_time on
	// rq_clock_pelt (5.19+), else throttled_clock_task and _task_time on
	// rq_clock_task; zero where unknown (BACK: the thread is no longer
	// under that group).
	__u64 clock;
	__u64 self_clock;
	__u64 self_time;
	// UNTHROTTLE, and HOLD or WAKE where hooked: the group of the first
	// ancestor queue, on the same CPU, (still) throttled itself; 0 where
	// none. OFF: 1 where the thread stays runnable.
	__u64 next;
};

// Keeps struct record in the object's BTF, for bpf2go's -type record.
const struct record *unused_record __attribute__((unused));

// Set by user space before load, from the kernel's BTF.
const volatile bool task_based = 0; // task_struct.throttled exists (6.18+)
const volatile bool self_clock = 0; // cfs_rq.throttled_clock_self_time (6.6+)
const volatile bool pelt_clock = 0; // else cfs_rq.throttled_clock_pelt_time (5.19+)
const volatile bool task_clock = 0; // else cfs_rq.throttled_clock_task_time

// Set by user space before load: the inode number of its PID namespace
// where that is not the root one, else 0. A traced thread's OFF, ON and
// WOKEN then carry its id in that namespace (clock), where that is its
// own innermost one: the id its process reads for itself (gettid), which
// the records' tid, the kernel's, is not.
const volatile __u32 pidns = 0;

// Set by user space once the throttle hooks are attached, before the
// tracepoints are: holds and sleeps then name their queue in throttlers,
// and the hooks, not RUN, end them.
volatile bool hooked = 0;

// Set by user space: write OFF, ON and WOKEN for the traced threads.
volatile bool states = 0;

// Bumped by user space after each change of groups: a thread's group's
// entry in leaves of another generation is looked up again.
volatile __u64 generation = 0;

// Read by user space at Stop. lost, lost_back, lost_run: HOLD, WAKE or
// SLEEP, BACK, and RUN, THROTTLE or UNTHROTTLE records a full ring buffer
// refused; lost_held: holds the held map refused (full or busy);
// lost_queues: holds and sleeps the queues, sleeps or throttlers map
// refused (their RUN or UNTHROTTLE may not come); submitted:
// records sent, set against those read for the ones in flight at Stop.
__u64 lost = 0;
__u64 lost_back = 0;
__u64 lost_run = 0;
__u64 lost_held = 0;
__u64 lost_queues = 0;
__u64 submitted = 0;
// OFF, ON and WOKEN records a full ring buffer refused: a thread's
// timeline has a gap (its requests' breakdown may be wrong).
__u64 lost_states = 0;

// Entries in held: while it is zero a switch-in needs no lookup.
__u64 nheld = 0;

// Before 6.6, unhooked, only: entries in sleeps, the program's +1 and -1
// and user space's -1 at Untrack (as slept_on's); while it and nheld are
// zero a switch-in looks for no RUN.
__s64 nslept = 0;

// The traced groups (kernfs ids), filled and changed by user space while
// attached (Track, Untrack). A thread is traced if a group of its, or an
// ancestor's, is here.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} groups SEC(".maps");

// The threads held now, by tid: the filter that lets a switch-in of a held
// thread alone write BACK. Bounded by the threads runnable at once: a held
// thread always runs again, if only to exit, and its entry goes then. A
// plain hash, not an LRU, so that a hold it cannot keep is counted.
struct hold {
	__u64 group; // the throttled queue's group and CPU, to find it again
	__u32 cpu;
	__u32 pad;
	// The thread's own queue then (a struct cfs_rq *, only compared and
	// probe-read): a throttle of it or of one above it holds the thread
	// again where it still waits (hooked).
	__u64 leaf;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct hold);
} held SEC(".maps");

#define MAX_CPUS 4096

// Before 6.6, unhooked, only: per CPU, the entries in held whose queue is
// on it. Each +1 follows a successful insert in held and each -1 a
// successful delete of the same entry, so it is the number of those
// entries however many CPUs change it. While it and slept_on are zero a
// switch-in on that CPU writes no RUN.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, __s64);
} held_on SEC(".maps");

// Before 6.6, unhooked, only: per CPU, the entries in sleeps on it: +1 at
// each insert and -1 at each delete, the program's, and user space's at
// Untrack (a plain read and write of the element, so that a change of the
// program's on that CPU at the same moment can be lost: then RUNs are
// looked for in vain, or a SLEEP's missed, on that CPU until Stop).
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, __s64);
} slept_on SEC(".maps");

// Before 6.6, unhooked, only: the queues (group, CPU) with a hold and no
// RUN since (queues), and those with a SLEEP and no RUN since (sleeps).
// The RUN deletes the entry: one RUN per hold or stretch, and the maps hold only
// queues waiting for their group to run. User space deletes a group's
// entries at Untrack.
struct queue {
	__u64 group;
	__u32 cpu;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct queue);
	__type(value, __u64); // when the latest hold began
} queues SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct queue);
	__type(value, __u8);
} sleeps SEC(".maps");

// Where hooked: the queues (group, CPU) a hold or sleep was recorded on,
// or that hold a held thread on (an UNTHROTTLE's next), and so whose
// throttles and unthrottles are written. Kept until Stop (user space
// deletes a group's at Untrack): a thread may wait through several.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct queue);
	__type(value, __u8);
} throttlers SEC(".maps");

// Whether a thread's own group (the leaf, kernfs id) is traced, as
// traced() found it in generation gen: the test every switch pays for
// both its threads while states are written, one lookup where the walk
// up the groups would be several. An LRU: every group on the machine may
// pass through; one pushed out is walked again.
struct leaf {
	__u64 gen;
	__u64 traced;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct leaf);
} leaves SEC(".maps");

// In front of leaves, per CPU: the threads switched there lately (slot:
// tid % SEEN), each with its task group (a struct task_group *, only
// compared) in generation gen, its group's kernfs id and whether it is
// traced. A CPU switches among few threads, so most switches find both
// theirs here: two loads of the task's own fields (pid, its task group)
// and this CPU's memory, where leaves wants the group's id, four
// dependent loads, and a call that hashes and keeps the LRU's books
// (BenchmarkContextSwitch, this host: a switch of untraced threads 280 ns
// with leaves alone, 140 with this, 130 before either). Per CPU, so that
// an entry is never written by two CPUs at once. A task group freed and
// its memory given to another while a thread moved out of one and into
// the other unseen by this CPU would be taken for the first until the
// traced groups next change.
#define SEEN 256
struct seen {
	__u64 task; // the struct task_struct *, only compared
	__u64 tg;
	__u64 gen;
	__u64 group;
	__u64 traced;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SEEN);
	__type(key, __u32);
	__type(value, struct seen);
} seen SEC(".maps");


struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); // 1 MiB: about 16 thousand records
} events SEC(".maps");

// Deep enough for any real hierarchy (kubepods/burstable/pod/container is 4).
#define MAX_LEVELS 16

static __always_inline __u64 group_of(struct cfs_rq *cfs)
{
	return BPF_CORE_READ(cfs, tg, css.cgroup, kn, id);
}

// Whether task t is in a traced group or below one, in the hierarchy of
// the cpu controller (v1's cpu tree or v2's unified one).
static __always_inline bool traced(struct task_struct *t)
{
	struct task_group *tg = BPF_CORE_READ(t, sched_task_group);

	for (int i = 0; i < MAX_LEVELS && tg; i++) {
		__u64 id = BPF_CORE_READ(tg, css.cgroup, kn, id);
		if (bpf_map_lookup_elem(&groups, &id))
			return 1;
		tg = BPF_CORE_READ(tg, parent);
	}
	return 0;
}

// The group of t's own (kernfs id) where t is traced, as traced(), found
// through leaves; 0 where it is not. typed: t is a BTF pointer (tp_btf),
// whose fields are read by direct loads.
static __always_inline __u64 thread_traced(struct task_struct *t, bool typed)
{
	struct task_group *tg;
	__u32 pid;

	if (typed) {
		pid = t->pid;
		tg = t->sched_task_group;
	} else {
		pid = BPF_CORE_READ(t, pid);
		tg = BPF_CORE_READ(t, sched_task_group);
	}
	if (!pid || !tg)
		return 0; // the idle task: never in a traced group
	// Read gen before the walk: a change of groups after it bumps
	// generation, and this entry is walked again.
	__u64 gen = generation;
	__u32 slot = pid % SEEN;
	struct seen *c = bpf_map_lookup_elem(&seen, &slot);
	if (c && c->task == (__u64)t && c->tg == (__u64)tg && c->gen == gen)
		return c->traced ? c->group : 0;
	__u64 id = BPF_CORE_READ(tg, css.cgroup, kn, id);
	struct leaf *l = bpf_map_lookup_elem(&leaves, &id);
	__u64 v;
	if (l && l->gen == gen) {
		v = l->traced;
	} else {
		struct leaf nl = { .gen = gen, .traced = traced(t) };
		bpf_map_update_elem(&leaves, &id, &nl, BPF_ANY);
		v = nl.traced;
	}
	if (c) {
		c->task = (__u64)t;
		c->tg = (__u64)tg;
		c->gen = gen;
		c->group = id;
		c->traced = v;
	}
	return v ? id : 0;
}

// Whether t's run queue on its CPU is throttled, itself or an ancestor.
static __always_inline bool rq_throttled(struct task_struct *t)
{
	struct cfs_rq *cfs = BPF_CORE_READ(t, se.cfs_rq);

	if (!cfs)
		return 0;
	return BPF_CORE_READ_BITFIELD_PROBED(cfs, throttled) || BPF_CORE_READ(cfs, throttle_count);
}

// The queue that holds t: the first of its queues, going up its groups,
// that is throttled itself (its own quota ran out), else its own.
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

// clocks copies the queue's throttled clocks, and its CPU's clock they
// run on, into r.
static __always_inline void clocks(struct record *r, struct cfs_rq *cfs)
{
	struct rq *rq = BPF_CORE_READ(cfs, rq);

	if (self_clock && bpf_core_field_exists(cfs->throttled_clock_self_time)) {
		r->clock = BPF_CORE_READ(rq, clock);
		r->self_clock = BPF_CORE_READ(cfs, throttled_clock_self);
		r->self_time = BPF_CORE_READ(cfs, throttled_clock_self_time);
	} else if (pelt_clock && bpf_core_field_exists(cfs->throttled_clock_pelt_time)) {
		r->clock = BPF_CORE_READ(rq, clock_pelt) - BPF_CORE_READ(rq, lost_idle_time);
		r->self_clock = BPF_CORE_READ(cfs, throttled_clock_pelt);
		r->self_time = BPF_CORE_READ(cfs, throttled_clock_pelt_time);
	} else if (task_clock && bpf_core_field_exists(cfs->throttled_clock_task_time)) {
		r->clock = BPF_CORE_READ(rq, clock_task);
		r->self_clock = BPF_CORE_READ(cfs, throttled_clock_task);
		r->self_time = BPF_CORE_READ(cfs, throttled_clock_task_time);
	} else {
		r->clock = BPF_CORE_READ(rq, clock);
	}
}

// send sends r: the reader is woken only when the buffer is a quarter
// full (it reads every 100 ms anyway, and a wake-up is a context switch of
// its own, on a machine that may be busy throttling).
static __always_inline void send(struct record *r)
{
	__u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > (1 << 18) ? BPF_RB_FORCE_WAKEUP :
										 BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(r, flags);
}

// submit is send, counted in submitted.
static __always_inline void submit(struct record *r)
{
	send(r);
	__sync_fetch_and_add(&submitted, 1);
}

// ns_tid is thread t's id in user space's PID namespace (pidns), where
// that is its innermost one; 0 where not, or in the root namespace.
static __always_inline __u32 ns_tid(struct task_struct *t)
{
	if (!pidns)
		return 0;
	struct pid *p = BPF_CORE_READ(t, thread_pid);
	if (!p)
		return 0;
	__u32 level = BPF_CORE_READ(p, level);
	struct upid u = {};
	if (level > 32 || bpf_probe_read_kernel(&u, sizeof(u), (void *)p + bpf_core_field_offset(struct pid, numbers) +
										 level * sizeof(struct upid)))
		return 0;
	if (!u.ns || BPF_CORE_READ(u.ns, ns.inum) != pidns)
		return 0;
	return u.nr;
}

// state writes an OFF, ON or WOKEN record of thread t of group (its own),
// on cpu. Not counted in submitted, which says how many holds and ends
// were in flight at Stop (a shared counter every CPU's records would
// contend for); a thread's states still in flight are its timeline's
// last few microseconds.
static __always_inline void state(enum kind kind, struct task_struct *t, __u64 group, __u32 cpu, __u64 runnable)
{
	struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost_states, 1);
		return;
	}
	*r = (struct record){ .kind = kind, .cpu = cpu, .tid = BPF_CORE_READ(t, pid),
			      .on_cpu = bpf_get_smp_processor_id(), .time_ns = bpf_ktime_get_ns(), .group = group,
			      .clock = ns_tid(t), .next = runnable };
	send(r);
}

static __always_inline void add_on(void *counts, __u32 cpu, __s64 d)
{
	__s64 *n = bpf_map_lookup_elem(counts, &cpu);

	if (n)
		__sync_fetch_and_add(n, d);
}

// held_by is the group of the first of cfs's ancestor queues on cpu that
// is throttled itself (its own quota ran out), 0 where none is.
static __always_inline __u64 held_by(struct cfs_rq *cfs, __u32 cpu)
{
	struct task_group *tg = BPF_CORE_READ(cfs, tg, parent);

	for (int i = 0; i < MAX_LEVELS && tg && cpu < MAX_CPUS; i++) {
		struct cfs_rq **per_cpu = BPF_CORE_READ(tg, cfs_rq);
		struct cfs_rq *q = 0;
		if (!per_cpu || bpf_core_read(&q, sizeof(q), per_cpu + cpu) || !q)
			return 0;
		if (BPF_CORE_READ_BITFIELD_PROBED(q, throttled))
			return group_of(q);
		tg = BPF_CORE_READ(tg, parent);
	}
	return 0;
}

// watch puts queue (group, cpu) in throttlers: its throttles and
// unthrottles are written from now on.
static __always_inline void watch(__u64 group, __u32 cpu)
{
	struct queue q = { .group = group, .cpu = cpu };
	__u8 one = 1;

	if (bpf_map_update_elem(&throttlers, &q, &one, BPF_ANY))
		__sync_fetch_and_add(&lost_queues, 1);
}

// hold records that thread tid, held by the throttled queue cfs, began to
// wait at now. The record is reserved before the thread enters held, so
// that its BACK, written only after, comes after it in the buffer.
static __always_inline void hold(enum kind kind, struct task_struct *t, struct cfs_rq *cfs)
{
	__u32 tid = BPF_CORE_READ(t, pid);
	struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return;
	}
	struct hold h = { .group = group_of(cfs), .cpu = BPF_CORE_READ(cfs, rq, cpu),
			  .leaf = (__u64)BPF_CORE_READ(t, se.cfs_rq) };
	long err = bpf_map_update_elem(&held, &tid, &h, BPF_NOEXIST);
	if (err) {
		// Already held: its first start stands.
		if (err != -EEXIST)
			__sync_fetch_and_add(&lost_held, 1);
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		return;
	}
	__sync_fetch_and_add(&nheld, 1);
	__u64 now = bpf_ktime_get_ns();
	if (hooked) {
		watch(h.group, h.cpu);
	} else if (!self_clock) {
		add_on(&held_on, h.cpu, 1);
		struct queue q = { .group = h.group, .cpu = h.cpu };
		if (bpf_map_update_elem(&queues, &q, &now, BPF_ANY))
			__sync_fetch_and_add(&lost_queues, 1);
	}
	*r = (struct record){ .kind = kind, .cpu = h.cpu, .tid = tid, .on_cpu = bpf_get_smp_processor_id(),
			      .time_ns = now, .group = h.group };
	if (hooked)
		r->next = held_by(cfs, h.cpu);
	clocks(r, cfs);
	submit(r);
}

// queue_of is t's queue of group on cpu: found from t's own queues, the
// one of that group, or that group's queue on another CPU if t moved; 0
// where t is no longer under group.
static __always_inline struct cfs_rq *queue_of(struct task_struct *t, __u64 group, __u32 cpu)
{
	struct cfs_rq *cfs = BPF_CORE_READ(t, se.cfs_rq);
	struct sched_entity *se = BPF_CORE_READ(t, se.parent);

	for (int i = 0; i < MAX_LEVELS && cfs; i++) {
		if (group_of(cfs) == group) {
			if (BPF_CORE_READ(cfs, rq, cpu) == cpu)
				return cfs;
			struct cfs_rq **per_cpu = BPF_CORE_READ(cfs, tg, cfs_rq);
			struct cfs_rq *q = 0;
			if (cpu < MAX_CPUS && bpf_core_read(&q, sizeof(q), per_cpu + cpu) == 0)
				return q;
			return 0;
		}
		if (!se)
			break;
		cfs = BPF_CORE_READ(se, cfs_rq);
		se = BPF_CORE_READ(se, parent);
	}
	return 0;
}

// back records that the held thread next, tid, runs again.
static __always_inline void back(struct task_struct *next, __u32 tid, struct hold *h)
{
	struct hold v = *h;

	if (bpf_map_delete_elem(&held, &tid) != 0)
		return; // another CPU took it
	__sync_fetch_and_sub(&nheld, 1);
	if (!self_clock && !hooked)
		add_on(&held_on, v.cpu, -1);
	struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost_back, 1);
		return;
	}
	*r = (struct record){ .kind = BACK, .cpu = v.cpu, .tid = tid, .on_cpu = bpf_get_smp_processor_id(),
			      .time_ns = bpf_ktime_get_ns(), .group = v.group };
	struct cfs_rq *cfs = queue_of(next, v.group, v.cpu);
	if (cfs)
		clocks(r, cfs);
	submit(r);
}

// sleeping records that thread tid of a traced group went to sleep
// leaving its queue cfs throttled (before 6.6): the stretch, which that
// kernel's counter counts, begins with none of its threads held.
static __always_inline void sleeping(__u32 tid, struct cfs_rq *cfs)
{
	struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return;
	}
	struct queue q = { .group = group_of(cfs), .cpu = BPF_CORE_READ(cfs, rq, cpu) };
	__u8 one = 1;
	if (hooked) {
		watch(q.group, q.cpu); // its UNTHROTTLE ends the stretch
	} else {
		long err = bpf_map_update_elem(&sleeps, &q, &one, BPF_NOEXIST);
		if (err == 0) {
			__sync_fetch_and_add(&nslept, 1);
			add_on(&slept_on, q.cpu, 1);
		} else if (err != -EEXIST) {
			__sync_fetch_and_add(&lost_queues, 1);
		}
	}
	*r = (struct record){ .kind = SLEEP, .cpu = q.cpu, .tid = tid, .on_cpu = bpf_get_smp_processor_id(),
			      .time_ns = bpf_ktime_get_ns(), .group = q.group };
	clocks(r, cfs);
	submit(r);
}

// run_again writes RUN, with the queue's clocks, for each queue of next's
// groups on this CPU that had a HOLD or a SLEEP and no RUN since: next, not
// throttled, runs in all of them.
static __always_inline void run_again(struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__s64 *held = bpf_map_lookup_elem(&held_on, &cpu);
	__s64 *slept = bpf_map_lookup_elem(&slept_on, &cpu);

	if (!held || !slept || (*held <= 0 && *slept <= 0) || rq_throttled(next))
		return;
	struct cfs_rq *cfs = BPF_CORE_READ(next, se.cfs_rq);
	struct sched_entity *se = BPF_CORE_READ(next, se.parent);
	// The top queue (se NULL) is the CPU's root: never throttled.
	for (int i = 0; i < MAX_LEVELS && cfs && se; i++) {
		struct queue q = { .group = group_of(cfs), .cpu = cpu };
		bool waits = *held > 0 && bpf_map_lookup_elem(&queues, &q);
		bool slept_here = *slept > 0 && bpf_map_lookup_elem(&sleeps, &q);
		if (waits || slept_here) {
			struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
			if (!r) {
				__sync_fetch_and_add(&lost_run, 1);
				return; // the entries stay: the next switch-in tries again
			}
			if (waits)
				bpf_map_delete_elem(&queues, &q);
			if (slept_here && bpf_map_delete_elem(&sleeps, &q) == 0) {
				__sync_fetch_and_sub(&nslept, 1);
				__sync_fetch_and_sub(slept, 1);
			}
			*r = (struct record){ .kind = RUN, .cpu = cpu, .tid = BPF_CORE_READ(next, pid), .on_cpu = cpu,
					      .time_ns = bpf_ktime_get_ns(), .group = q.group };
			clocks(r, cfs);
			submit(r);
		}
		cfs = BPF_CORE_READ(se, cfs_rq);
		se = BPF_CORE_READ(se, parent);
	}
}

// left_throttled is whether t, going to sleep, leaves its queue throttled,
// itself or by an ancestor (before 6.18 throttle_count counts both): the
// test every sleeping switch pays before 6.6, so where the program is
// typed (tp_btf) by direct loads, not probe reads.
static __always_inline bool left_throttled(struct task_struct *t, bool typed)
{
	if (typed) {
		struct cfs_rq *cfs = t->se.cfs_rq;
		return cfs && cfs->throttle_count;
	}
	return BPF_CORE_READ(t, se.cfs_rq, throttle_count);
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev, struct task_struct *next,
				     unsigned int prev_state, bool typed)
{
	// Every switch on the machine runs this: the common path is a few
	// tests, and a lookup that misses while some thread is held.
	if (nheld) {
		__u32 tid = BPF_CORE_READ(next, pid);
		struct hold *h = bpf_map_lookup_elem(&held, &tid);
		if (h)
			back(next, tid, h);
	}
	if (!self_clock && !hooked && (nheld || nslept > 0))
		run_again(next);
	if (states) {
		__u64 group = thread_traced(prev, typed);
		if (group)
			state(OFF, prev, group, bpf_get_smp_processor_id(), preempt || prev_state == 0);
		group = thread_traced(next, typed);
		if (group)
			state(ON, next, group, bpf_get_smp_processor_id(), 0);
	}

	// A hold: still runnable (preempted, or switched out in state 0),
	// throttled, and only then the walk up the groups, the costly test.
	// Before 6.6, a thread going to sleep as its queue throttles is a
	// SLEEP.
	if (!preempt && prev_state != 0) {
		if (!self_clock && !task_based && left_throttled(prev, typed) && traced(prev))
			sleeping(BPF_CORE_READ(prev, pid), throttled_cfs(prev));
		return 0;
	}
	if (task_based) {
		if (!bpf_core_field_exists(prev->throttled) || !BPF_CORE_READ(prev, throttled))
			return 0;
	} else if (!rq_throttled(prev)) {
		return 0;
	}
	if (!traced(prev))
		return 0;
	hold(HOLD, prev, throttled_cfs(prev));
	return 0;
}

// on_wakeup: a thread woken (or, new, woken the first time) onto a
// throttled queue waits there without having run. Not where threads are
// throttled one by one: the woken thread runs in the kernel first, and
// meets the throttle on its way out, which on_switch sees.
static __always_inline int on_wakeup(struct task_struct *p, bool typed)
{
	__u64 group = states ? thread_traced(p, typed) : 0;
	if (group)
		state(WOKEN, p, group, BPF_CORE_READ(p, se.cfs_rq, rq, cpu), 0);
	if (task_based || !rq_throttled(p) || !traced(p))
		return 0;
	hold(WAKE, p, throttled_cfs(p));
	return 0;
}

// BTF-typed tracepoints: preferred (checked arguments, cheaper entry).
// sched_switch's prev_state argument came in 5.18: before, the tracer says
// it cannot trace (Probe).
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state, 1);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup_btf, struct task_struct *p)
{
	return on_wakeup(p, 1);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new_btf, struct task_struct *p)
{
	return on_wakeup(p, 1);
}

// Raw tracepoints: the same for kernels that refuse tp_btf.
SEC("raw_tp/sched_switch")
int BPF_PROG(sched_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state, 0);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(sched_wakeup_raw, struct task_struct *p)
{
	return on_wakeup(p, 0);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new_raw, struct task_struct *p)
{
	return on_wakeup(p, 0);
}

// A throttle being told to the held threads below the throttled queue.
struct throttling {
	struct cfs_rq *cfs;
	__u64 group;
	__u32 cpu;
	__u64 now;
};

// held_below, for each held thread: where its own queue is the throttled
// one or below it, a THROTTLE for that thread (tid), and the queue
// watched, so that its unthrottle is written too.
static long held_below(void *map, __u32 *tid, struct hold *h, struct throttling *c)
{
	// Read before the walk: bpf_core_read's preserve_access_index would
	// take c->cpu for a kernel field to relocate.
	__u32 cpu = c->cpu;

	if (h->cpu != cpu)
		return 0;
	struct cfs_rq *q = (struct cfs_rq *)h->leaf;
	for (int i = 0; i < MAX_LEVELS && q; i++) {
		if (q == c->cfs) {
			struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
			if (!r) {
				__sync_fetch_and_add(&lost_run, 1);
				return 0;
			}
			*r = (struct record){ .kind = THROTTLE, .cpu = c->cpu, .tid = *tid,
					      .on_cpu = bpf_get_smp_processor_id(), .time_ns = c->now, .group = c->group };
			submit(r);
			watch(c->group, c->cpu);
			return 0;
		}
		struct task_group *tg = BPF_CORE_READ(q, tg, parent);
		struct cfs_rq **per_cpu = tg ? BPF_CORE_READ(tg, cfs_rq) : 0;
		q = 0;
		if (!per_cpu || cpu >= MAX_CPUS || bpf_core_read(&q, sizeof(q), per_cpu + cpu))
			return 0;
	}
	return 0;
}

// on_bandwidth is called as the kernel throttles or unthrottles queue cfs.
// A throttle is told to each held thread below it (held_below); an
// unthrottle is written where the queue is watched or its group traced
// (its stretch can hold a traced thread), and an ancestor still
// throttled itself, which holds the queue's threads on, is named (next)
// and watched.
static __always_inline int on_bandwidth(enum kind kind, struct cfs_rq *cfs, bool want_throttled)
{
	if (!hooked || !cfs)
		return 0;
	// A call that changes nothing writes nothing: throttle_cfs_rq returns
	// without throttling where it finds runtime at the last moment, so it
	// is seen at its exit (fexit), throttled, or at its entry (kprobe),
	// not yet throttled, where that may still happen; unthrottle_cfs_rq
	// at its exit, unthrottled (fexit), or its entry, throttled (kprobe).
	if (BPF_CORE_READ_BITFIELD_PROBED(cfs, throttled) != want_throttled)
		return 0;
	if (kind == THROTTLE) {
		if (!nheld)
			return 0;
		struct throttling c = { .cfs = cfs, .group = group_of(cfs), .cpu = BPF_CORE_READ(cfs, rq, cpu),
					.now = bpf_ktime_get_ns() };
		bpf_for_each_map_elem(&held, held_below, &c, 0);
		return 0;
	}
	struct queue q = { .group = group_of(cfs), .cpu = BPF_CORE_READ(cfs, rq, cpu) };
	if (!bpf_map_lookup_elem(&throttlers, &q) && !bpf_map_lookup_elem(&groups, &q.group))
		return 0;
	struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost_run, 1);
		return 0;
	}
	*r = (struct record){ .kind = kind, .cpu = q.cpu, .on_cpu = bpf_get_smp_processor_id(),
			      .time_ns = bpf_ktime_get_ns(), .group = q.group };
	r->next = held_by(cfs, q.cpu);
	if (r->next)
		watch(r->next, q.cpu);
	submit(r);
	return 0;
}

// The hooks, fexit where the kernel takes it, else kprobes at entry
// (x86-64: the argument is read from struct pt_regs' di, which CO-RE finds
// on that architecture only; elsewhere the kprobes do not load).
SEC("fexit/throttle_cfs_rq")
int BPF_PROG(throttle_fexit, struct cfs_rq *cfs)
{
	return on_bandwidth(THROTTLE, cfs, 1);
}

// At the unthrottle's exit: the queue's entity is back in its parent,
// which may have throttled on it (an ancestor out of quota), so that the
// ancestor that holds its threads on is known.
SEC("fexit/unthrottle_cfs_rq")
int BPF_PROG(unthrottle_fexit, struct cfs_rq *cfs)
{
	return on_bandwidth(UNTHROTTLE, cfs, 0);
}

struct pt_regs {
	unsigned long di;
} __attribute__((preserve_access_index));

SEC("kprobe/throttle_cfs_rq")
int throttle_kprobe(struct pt_regs *ctx)
{
	return on_bandwidth(THROTTLE, (struct cfs_rq *)BPF_CORE_READ(ctx, di), 0);
}

SEC("kprobe/unthrottle_cfs_rq")
int unthrottle_kprobe(struct pt_regs *ctx)
{
	return on_bandwidth(UNTHROTTLE, (struct cfs_rq *)BPF_CORE_READ(ctx, di), 1);
}

// GPL-compatible: bpf_probe_read_kernel, behind BPF_CORE_READ, is GPL-only.
char LICENSE[] SEC("license") = "Dual MIT/GPL";
