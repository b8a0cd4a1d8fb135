// Package placement checks, before anything is created, that a
// configuration's placement (--cpuset, --one-per-core) is one this machine
// can give: the CPUs this process may use (sched_getaffinity), those the
// cpuset its slices would be made in offers, and the CPU layout (sysfs).
//
// Facts are read once per command (Read) and held as plain values, so the
// arithmetic (Facts.Check) is tested on fakes. What is not known is not
// held against the user. Refusals are badinput.Errors naming the flag (exit
// 2); a layout that cannot be read is an ordinary error.
package placement
