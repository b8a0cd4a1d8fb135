// Command check judges, inside the SMT guest (test/vm/smt/guest.sh), the
// JSON a throttlebench command wrote: check NAME FILE runs the check NAME
// on FILE, prints one line per finding, and exits 1 if any check failed
// (3 on bad usage).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
)

// checks by name; each returns what is wrong with the JSON (nothing: ok).
var checks = map[string]func(data []byte) []string{
	"inspect-smt":             inspectSMT,
	"run-one-per-core":        runOnePerCore(false),
	"run-one-per-core-pinned": runOnePerCore(true),
}

// guest is the topology test-v2.sh smt boots: -smp 4,sockets=1,cores=2,threads=2
// numbers the threads of a core next to each other.
var guest = struct {
	online   []int
	siblings [][]int
}{[]int{0, 1, 2, 3}, [][]int{{0, 1}, {2, 3}}}

func inspectSMT(data []byte) []string {
	var r struct {
		CPUs struct {
			Online         []int   `json:"online"`
			Cores          int     `json:"cores"`
			ThreadsPerCore int     `json:"threads_per_core"`
			SMT            bool    `json:"smt"`
			Sockets        int     `json:"sockets"`
			Siblings       [][]int `json:"siblings"`
		} `json:"cpus"`
		Cgroup struct {
			Version int    `json:"version"`
			Mode    string `json:"mode"`
		} `json:"cgroup"`
		Caveats []string `json:"caveats"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return []string{fmt.Sprintf("not inspect's JSON: %v", err)}
	}
	var bad []string
	want := func(what string, got, want any) {
		if !reflect.DeepEqual(got, want) {
			bad = append(bad, fmt.Sprintf("%s: got %v, want %v", what, got, want))
		}
	}
	c := r.CPUs
	want("cpus.online", c.Online, guest.online)
	want("cpus.cores", c.Cores, 2)
	want("cpus.threads_per_core", c.ThreadsPerCore, 2)
	want("cpus.smt", c.SMT, true)
	want("cpus.sockets", c.Sockets, 1)
	want("cpus.siblings", c.Siblings, guest.siblings)
	want("cgroup.version", r.Cgroup.Version, 2)
	want("cgroup.mode", r.Cgroup.Mode, "v2")
	if !slices.ContainsFunc(r.Caveats, func(s string) bool { return strings.HasPrefix(s, "SMT on: more workers than cores (2)") }) {
		bad = append(bad, fmt.Sprintf("caveats: no SMT caveat for 2 cores in %q", r.Caveats))
	}
	return bad
}

// runOnePerCore judges a run with --one-per-core (and --pin when pinned)
// on 2 workers: the workers may use one thread of each core, the lower of
// each pair (0 and 2), ran nowhere else, and count as 2 CPUs; pinned,
// worker i ran on the i-th of them alone.
func runOnePerCore(pinned bool) func([]byte) []string {
	return func(data []byte) []string {
		var r struct {
			Config struct {
				OnePerCore bool `json:"one_per_core"`
				Pin        bool `json:"pin"`
			} `json:"config"`
			Cgroup struct {
				AllowedCPUs   string  `json:"allowed_cpus"`
				EffectiveCPUs float64 `json:"effective_cpus"`
			} `json:"cgroup"`
			Workers []struct {
				CPUs      []int `json:"cpus"`
				PinnedCPU *int  `json:"pinned_cpu"`
			} `json:"workers"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return []string{fmt.Sprintf("not run's JSON: %v", err)}
		}
		var bad []string
		want := func(what string, got, want any) {
			if !reflect.DeepEqual(got, want) {
				bad = append(bad, fmt.Sprintf("%s: got %v, want %v", what, got, want))
			}
		}
		want("config.one_per_core", r.Config.OnePerCore, true)
		want("config.pin", r.Config.Pin, pinned)
		want("cgroup.allowed_cpus", r.Cgroup.AllowedCPUs, "0,2")
		want("cgroup.effective_cpus", r.Cgroup.EffectiveCPUs, 2.0)
		if len(r.Workers) != 2 {
			return append(bad, fmt.Sprintf("workers: got %d, want 2", len(r.Workers)))
		}
		for i, w := range r.Workers {
			for _, c := range w.CPUs {
				if c != 0 && c != 2 {
					bad = append(bad, fmt.Sprintf("workers[%d].cpus: %v holds %d, the second thread of a core", i, w.CPUs, c))
				}
			}
			if pinned {
				cpu := []int{0, 2}[i]
				want(fmt.Sprintf("workers[%d].pinned_cpu", i), w.PinnedCPU != nil && *w.PinnedCPU == cpu, true)
				want(fmt.Sprintf("workers[%d].cpus", i), w.CPUs, []int{cpu})
			}
		}
		return bad
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout)) }

func run(args []string, out io.Writer) int {
	if len(args) != 2 || checks[args[0]] == nil {
		var names []string
		for n := range checks {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(out, "usage: check NAME FILE, NAME one of %s\n", strings.Join(names, ", "))
		return 3 // not 2: run.sh's own usage error
	}
	data, err := os.ReadFile(args[1])
	if err != nil {
		fmt.Fprintf(out, "FAIL %s: %v\n", args[0], err)
		return 1
	}
	bad := checks[args[0]](data)
	for _, b := range bad {
		fmt.Fprintf(out, "FAIL %s: %s\n", args[0], b)
	}
	if len(bad) > 0 {
		return 1
	}
	fmt.Fprintf(out, "ok %s\n", args[0])
	return 0
}
