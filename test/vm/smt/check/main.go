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
	"inspect-smt": inspectSMT,
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
