package benchhist

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// Line is one run of one benchmark: where and from what it ran, and every
// sample of every metric go test printed for it. It is one line of JSON in
// the benchmark's history file.
type Line struct {
	// Time is when the run started (make bench's start, one for all its
	// packages), UTC, RFC 3339: the run's identity.
	Time    string  `json:"time"`
	Machine Machine `json:"machine"`
	Kernel  string  `json:"kernel"` // uname -r
	Cgroup  Cgroup  `json:"cgroup"`
	Go      string  `json:"go"`     // go env GOVERSION
	Commit  string  `json:"commit"` // git rev-parse HEAD; "" outside a checkout
	// Dirty says the tree differed from Commit (the history itself not
	// counted).
	Dirty bool `json:"dirty"`
	// Pkg is the benchmark's package (its import path), Name its full
	// name without the GOMAXPROCS suffix, which is Procs.
	Pkg   string `json:"pkg"`
	Name  string `json:"name"`
	Procs int    `json:"procs"`
	// Config is go test's own header for the package (goos, goarch, cpu).
	Config map[string]string `json:"config,omitempty"`
	// Iters is each sample's b.N, in order.
	Iters []int `json:"iters"`
	// Metrics are every unit the benchmark reported, as go test printed
	// it (ns/op, B/op, b.ReportMetric's), each with all of its samples in
	// order.
	Metrics map[string][]float64 `json:"metrics"`
}

// Machine is what makes two runs the same hardware; the hostname does not.
type Machine struct {
	CPUModel string `json:"cpu_model"` // /proc/cpuinfo's model name
	NumCPU   int    `json:"num_cpu"`   // the CPUs this process may use (nproc)
	MemBytes uint64 `json:"mem_total_bytes"`
}

// Cgroup is the cgroup layout of the machine: the version of the hierarchy
// holding the cpu controller (0 when none) and the mount mode (v1, hybrid,
// v2, none).
type Cgroup struct {
	Version int    `json:"version"`
	Mode    string `json:"mode"`
}

// Env is what every line of one run shares.
type Env struct {
	Time    string
	Machine Machine
	Kernel  string
	Cgroup  Cgroup
	Go      string
	Commit  string
	Dirty   bool
}

// Line is b run in e.
func (e Env) Line(b Bench) Line {
	return Line{Time: e.Time, Machine: e.Machine, Kernel: e.Kernel, Cgroup: e.Cgroup, Go: e.Go, Commit: e.Commit, Dirty: e.Dirty,
		Pkg: b.Pkg, Name: b.Name, Procs: b.Procs, Config: b.Config, Iters: b.Iters, Metrics: b.Metrics}
}

// machineKey names the hardware: memory in whole GiB, as MemTotal moves by
// a few kB between kernels and boots.
func (m Machine) key() string {
	return fmt.Sprintf("%s, %d CPUs, %.0f GiB", m.CPUModel, m.NumCPU, math.Round(float64(m.MemBytes)/(1<<30)))
}

// Path is the file of a benchmark's history below root:
// root/<package below module>/<escaped name>.jsonl, such as
// bench/history/internal/stats/BenchmarkSummarize.jsonl. A package outside
// module keeps its whole import path. The name's characters that are not
// plain in a file name ('/' of a sub-benchmark among them) are escaped as
// %XX, so that every benchmark has one file and the names of files never
// clash; the line itself holds the name as go test printed it.
func Path(root, module, pkg, name string) string {
	rel := pkg
	if pkg == module {
		rel = "."
	} else if r, ok := strings.CutPrefix(pkg, module+"/"); ok && module != "" {
		rel = r
	}
	var dir []string
	for _, part := range strings.Split(rel, "/") {
		if part != "." && part != "" {
			dir = append(dir, escape(part))
		}
	}
	return filepath.Join(root, filepath.Join(dir...), escape(name)+".jsonl")
}

// escape keeps letters, digits and ._=,+- and writes every other byte as
// %XX; a leading '.' is escaped too, so that no name is hidden, . or ...
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		plain := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._=,+-", c) >= 0
		if !plain || c == '.' && i == 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
