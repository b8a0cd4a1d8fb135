package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mustLink are the libraries the design names for their jobs. If a change
// drops one of them from the binary, the job has most likely been written
// by hand again: this test fails, in `make check`, before that is merged.
// Size is no reason to drop one: the image size test (test/docker,
// TestImageSize) is a ceiling against regressions, not a target.
var mustLink = map[string]string{
	"gonum.org/v1/gonum/stat":                  "internal/stats' mean and variance",
	"github.com/containerd/cgroups/v3/cgroup1": "internal/cgroup's v1 slices",
	"github.com/containerd/cgroups/v3/cgroup2": "internal/cgroup's v2 slices",
	"k8s.io/api/batch/v1":                      "internal/kube's Jobs",
	"gonum.org/v1/plot/plotter":                "internal/plot's charts",
}

func TestBinaryLinksNamedLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	for pkg, job := range mustLink {
		if !slices.Contains(deps, pkg) {
			t.Errorf("throttlebench does not link %s (%s): use the library for its job rather than a hand-written copy", pkg, job)
		}
	}
}

// machinery are the packages that make, trace and ask D-Bus about cgroups.
// The configuration, compare and the plans and renderers built on them
// (a sweep's steps, latency's tables, kube's Jobs, the report's builder,
// sample's usage) name limits and read results; none may pull these in
// (issue 26: config imported internal/cgroup for its Limits, so every
// package that reads a configuration linked containerd/cgroups and, through
// it, cilium/ebpf; issue 35: sweep.Step carried the runner's options).
var machinery = []string{
	"github.com/throttlebench/throttlebench/internal/cgroup",
	"github.com/containerd/cgroups/v3",
	"github.com/cilium/ebpf",
	"github.com/godbus/dbus/v5",
}

// engine is the measuring engine and the machine's clocks: only the
// report's builder, which reads the engine's results, may link them among
// the packages below (issue 48: config imported internal/bench for its
// plain types, so size and plan linked the engine and internal/host).
var engine = []string{
	"github.com/throttlebench/throttlebench/internal/bench",
	"github.com/throttlebench/throttlebench/internal/host",
}

func TestConfigurationPullsNoMachinery(t *testing.T) {
	for _, pkg := range []string{"config", "runspec", "compare", "bandwidth", "plan", "latency", "kube", "report/build", "sweep", "usage", "size"} {
		out, err := exec.Command("go", "list", "-deps", "../../internal/"+pkg).Output()
		require.NoError(t, err, "go list -deps internal/%s", pkg)
		deps := strings.Fields(string(out))
		for _, m := range machinery {
			if slices.Contains(deps, m) {
				t.Errorf("internal/%s imports %s: plans and results are plain values (internal/plan, internal/bandwidth); keep the machinery out of them", pkg, m)
			}
		}
		if pkg == "report/build" {
			continue
		}
		for _, m := range engine {
			if slices.Contains(deps, m) {
				t.Errorf("internal/%s imports %s: what a run is asked is plain data (internal/runspec); keep the engine out of it", pkg, m)
			}
		}
	}
}

// counterReaders are internal/cgroup's readers of a cgroup's counters, each
// with the only functions that may call it: one reader per counter file,
// and no function that reads a file through two of them (as Slice.Stat
// once read cpu.stat through ours and again through containerd/cgroups).
// containerd/cgroups reads a slice's usage counter, which it exposes
// faithfully; cpu.stat's throttling counters are ours, since the library
// cannot tell a counter the kernel lacks from 0 and its v1 reader skips
// the burst counters; the allocation-free reader in place (usageInPlace)
// serves only UsageFile, the sampler's counter held open.
var counterReaders = map[string][]string{
	"parseCPUStat":   {"Cgroup.Stat", "StatFile.Read"}, // cpu.stat: nr_periods … burst_time
	"parseUsage":     {"readUsage"},                    // Cgroup.Usage: a cgroup the library does not hold
	"usageInPlace":   {"UsageFile.Usage"},              // the sampler's, allocation-free
	"parseUsageUsec": {"v2.parseUsage"},
	"usageUsecOf":    {"v2.usageInPlace"},
	"cg.Stat":        {"v1Slice.usage"},                // the library's v1 statistics
	"m.StatFiltered": {"v2Slice.usage", "v2.pressure"}, // the library's v2 statistics: usage, cpu.pressure
}

// callsReader says whether one of the calls is to reader: by its name as
// written (cg.Stat), or, for a reader named without a selector, by the
// method or function of that name (v.usageInPlace is usageInPlace).
func callsReader(called []string, reader string) bool {
	return slices.ContainsFunc(called, func(c string) bool {
		return c == reader || !strings.Contains(reader, ".") && strings.HasSuffix(c, "."+reader)
	})
}

// samplerPath are the only packages that may open the allocation-free
// usage reader (cgroup.Cgroup.OpenUsage): sample's command and its sampler.
var samplerPath = []string{"cmd/throttlebench", "internal/usage"}

func TestOneReaderPerCounter(t *testing.T) {
	calls := callsIn(t, "../../internal/cgroup")
	for reader, allowed := range counterReaders {
		var found []string
		for fn, called := range calls {
			if callsReader(called, reader) {
				found = append(found, fn)
				if !slices.Contains(allowed, fn) {
					t.Errorf("%s calls %s: only %v may read that counter", fn, reader, allowed)
				}
			}
		}
		if len(found) == 0 {
			t.Errorf("no function calls %s: update counterReaders", reader)
		}
	}
	for fn, called := range calls {
		var readers []string
		for reader := range counterReaders {
			if callsReader(called, reader) {
				readers = append(readers, reader)
			}
		}
		if len(readers) > 1 {
			t.Errorf("%s reads counters through %v: one reader per call", fn, readers)
		}
	}

	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "internal/cgroup" || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		for _, called := range callsInFile(t, p) {
			if callsReader(called, "OpenUsage") {
				if !slices.Contains(samplerPath, filepath.Dir(rel)) {
					t.Errorf("%s opens the sampler's allocation-free usage reader: only %v may", rel, samplerPath)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// callsIn maps each function of the package in dir (its files that are
// not tests), as "Recv.Name" or "Name", to what it calls.
func callsIn(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for fn, called := range callsInFile(t, f) {
			out[fn] = append(out[fn], called...)
		}
	}
	return out
}

// callsInFile is callsIn for one file. A call is named as written, with
// at most one selector before it: parseCPUStat, cg.Stat (m.cg.Stat()).
func callsInFile(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	out := map[string][]string{}
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			typ := fd.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				out[name] = append(out[name], fun.Name)
			case *ast.SelectorExpr:
				switch x := fun.X.(type) {
				case *ast.Ident:
					out[name] = append(out[name], x.Name+"."+fun.Sel.Name)
				case *ast.SelectorExpr:
					out[name] = append(out[name], x.Sel.Name+"."+fun.Sel.Name)
				default:
					out[name] = append(out[name], fun.Sel.Name)
				}
			}
			return true
		})
	}
	return out
}
