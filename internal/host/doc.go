// Package host reads what the machine as a whole does: the CPU time
// /proc/stat accounts to every CPU, so that a run can tell whether other
// load shared the machine with it. Inside a container /proc/stat is the
// host's, which is what that question needs: other containers compete for
// the same CPUs.
//
// Info is a result's host block (kernel, CPU model, CPUs, Go, hostname,
// node), read below an injected root; PIDCPU and ProcMemory read one
// process's CPU time and memory from outside it. ReadProcStatus is the one
// reader of /proc/PID/status (ProcMemory's, and internal/cgroup's for the
// signals pending on a process it may kill), below the injected root.
package host
