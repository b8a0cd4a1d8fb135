//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
//
// ringbench.bpf.c: for internal/tracer's BenchmarkRingBuffer only, a test
// object production never loads. Run through BPF_PROG_TEST_RUN, never
// attached, bench_emit pushes 256 records of throttle.bpf.c's layout
// through a ring buffer as that program does, to measure what the path
// sustains.

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

#include <bpf/bpf_helpers.h>

enum {
	BPF_MAP_TYPE_RINGBUF = 27,
};

// throttle.bpf.c's struct record, field for field.
struct record {
	__u32 kind;
	__u32 cpu;
	__u32 tid;
	__u32 on_cpu;
	__u64 time_ns;
	__u64 group;
	__u64 clock;
	__u64 self_clock;
	__u64 self_time;
	__u64 next;
};

__u64 lost = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

SEC("raw_tp/sched_switch")
int bench_emit(void *ctx)
{
	for (int i = 0; i < 256; i++) {
		struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
		if (!r) {
			__sync_fetch_and_add(&lost, 1);
			continue;
		}
		*r = (struct record){ .kind = 1 + (i & 1) * 2, .cpu = bpf_get_smp_processor_id(), .tid = i,
				      .time_ns = bpf_ktime_get_ns() };
		bpf_ringbuf_submit(r, 0);
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
