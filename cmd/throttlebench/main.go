// Command throttlebench measures what Linux CFS bandwidth control (cgroup CPU
// quota, period and burst) does to a CPU-bound workload.
package main

import "os"

func main() { os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr, false)) }
