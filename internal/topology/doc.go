// Package topology reads the machine's CPU layout from sysfs: which CPUs are
// online, which of them are SMT siblings of one core, the packages (sockets)
// and NUMA nodes. Two hyperthreads of a core share its execution units, so
// workers on siblings run slower than workers on separate cores, and a
// scheduler that keeps a busy thread where it is leaves that unevenness in
// place: the layout is what explains uneven worker speeds, and what
// --one-per-core needs to pick one thread of each core.
//
// The filesystem root is injected, so the parsers are tested on fixture
// trees (testdata/) as well as on this machine.
//
// It only reads. OnePerCore picks one thread of each core; the kernel's CPU
// list format is internal/cpulist's.
package topology
