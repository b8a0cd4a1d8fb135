// Package inspect explains the machine to a person about to trust numbers
// from it: the CPU layout (SMT siblings, sockets, NUMA nodes, offline CPUs),
// the cgroup this process is in with its limits and their ancestors, the
// cpuset, what the kernel and Go make of them, and the caveats that follow.
//
// It reads below an injected root ("/" on the machine, a fixture tree in
// tests) and creates nothing; what only the running process knows (its
// affinity, Go's GOMAXPROCS at start) is handed in.
//
// caveats.go holds the rules that turn what was read into caveats, each
// shown on a fixture machine in TestCaveats.
package inspect
