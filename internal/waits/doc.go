// Package waits tells what a measured window's threads waited for: each
// thread's run delay and time on a CPU (/proc/PID/task/TID/schedstat),
// read at the window's start, every usage.PeakInterval and at its end; the
// part of each thread's run delay beyond the cgroup's throttled time over
// each interval (the wait for a CPU, not the quota's hold); the cgroup's
// CPU pressure. Tracker does the sums, pure apart from the Readers it is
// handed; Of makes the kernel's Readers. The runner opens and closes a
// Tracker with every measured window (runner.Window's Waits), and
// report/build turns what it gives (build.Waits) into the contention.
//
// What changes here: how a thread's time in a window is taken apart
// (waiting for a CPU, held by the quota, on a CPU), and the counters read
// for it. How a result words it is report/build's.
package waits
