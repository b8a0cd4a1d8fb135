package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ARCHITECTURE.md is the map a newcomer reads first. It stays short, and it
// names only what exists: every repository path, package, Go identifier,
// test, make target, module, command and flag in its code spans is checked
// here against the source (parsed with go/parser, build tags ignored), so
// that a rename or a removal fails until the map follows. The details live
// in each package's doc.go, where go doc shows them.

// architectureMaxBytes is the bound (issue 35): one line per
// package, the invariants and where a change goes, no more.
const architectureMaxBytes = 10 * 1024

func TestArchitectureNamesWhatExists(t *testing.T) {
	text, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > architectureMaxBytes {
		t.Errorf("ARCHITECTURE.md is %d bytes, more than %d: details go into the packages' doc.go", len(text), architectureMaxBytes)
	}
	a := newArchChecker(t, "../..")
	for _, p := range a.check(string(text)) {
		t.Errorf("ARCHITECTURE.md: %s", p)
	}
	for _, p := range newDocChecker().check("ARCHITECTURE.md", string(text)) {
		t.Errorf("ARCHITECTURE.md: %s", p)
	}
	if a.paths < 20 || a.idents < 20 {
		t.Errorf("checked %d paths and %d identifiers: the parser no longer finds them", a.paths, a.idents)
	}
	t.Logf("checked %d paths, %d identifiers, %d tests, %d make targets, %d modules", a.paths, a.idents, a.tests, a.nTargets, a.nModules)
}

// TestArchitectureMapsEveryPackage: the code map has a line for every
// package under internal/ and cmd/, so a new package is placed on the map
// when it is made.
func TestArchitectureMapsEveryPackage(t *testing.T) {
	text, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	a := newArchChecker(t, "../..")
	named := map[string]bool{}
	for _, s := range spans(string(text)) {
		named[strings.TrimSuffix(s, "/")] = true
	}
	for dir := range a.dirs {
		if (strings.HasPrefix(dir, "internal/") || strings.HasPrefix(dir, "cmd/")) && !named[dir] {
			t.Errorf("ARCHITECTURE.md's code map has no line for `%s/`", dir)
		}
	}
}

// TestArchitectureCheckerFails: each kind of name is checked, and one that
// does not exist is reported.
func TestArchitectureCheckerFails(t *testing.T) {
	real := "`internal/config/` `internal/config/config.go` `ARCHITECTURE.md` `config.Params` " +
		"`cgroup.Slice.KillLeft` `report.Latency.FloorMs` `TestSoak` `make bench` " +
		"`gonum.org/v1/gonum/stat` `cpu.stat` `/sys/fs/cgroup`"
	a := newArchChecker(t, "../..")
	if got := a.check(real); len(got) != 0 {
		t.Errorf("problems in names that exist: %q", got)
	}
	fake := "`internal/nosuch/` `internal/config/nosuch.go` `nosuch.go` `config.NoSuch` " +
		"`report.Latency.NoField` `TestNoSuch` `make nosuch` `gonum.org/v1/nosuch`"
	want := []string{"internal/nosuch/", "internal/config/nosuch.go", "nosuch.go", "config.NoSuch",
		"report.Latency.NoField", "TestNoSuch", "nosuch", "gonum.org/v1/nosuch"}
	got := a.check(fake)
	for _, w := range want {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, w) }) {
			t.Errorf("no problem reported for %s; got %q", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d: %q", len(got), len(want), got)
	}
}

type archChecker struct {
	root    string
	dirs    map[string]map[string]bool // package directory → its declarations ("F", "T.Method", "T.Field")
	byName  map[string][]string        // package name → its directories
	funcs   map[string]bool            // every top-level function, tests included
	targets map[string]bool            // the Makefile's targets
	modules []string                   // go.mod's requirements
	// what was checked, so that a parser that finds nothing fails
	paths, idents, tests, nTargets, nModules int
}

func newArchChecker(t *testing.T, root string) *archChecker {
	t.Helper()
	a := &archChecker{root: root, dirs: map[string]map[string]bool{}, byName: map[string][]string{}, funcs: map[string]bool{}, targets: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		decls := a.dirs[rel]
		if decls == nil {
			decls = map[string]bool{}
			a.dirs[rel] = decls
		}
		if name := f.Name.Name; !strings.HasSuffix(name, "_test") && !strings.HasSuffix(path, "_test.go") && !slices.Contains(a.byName[name], rel) {
			a.byName[name] = append(a.byName[name], rel)
		}
		addDecls(f, decls, a.funcs)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`).FindAllStringSubmatch(string(mk), -1) {
		a.targets[m[1]] = true
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^\t([a-z0-9.-]+\.[a-z]+/\S+) v`).FindAllStringSubmatch(string(mod), -1) {
		a.modules = append(a.modules, strings.TrimSuffix(m[1], "/v3"))
	}
	if len(a.dirs) == 0 || len(a.targets) == 0 || len(a.modules) == 0 {
		t.Fatalf("found %d packages, %d make targets, %d modules under %s", len(a.dirs), len(a.targets), len(a.modules), root)
	}
	return a
}

// addDecls records a file's top-level names, its methods and its struct
// fields and interface methods as "Type.Name".
func addDecls(f *ast.File, decls, funcs map[string]bool) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				decls[d.Name.Name] = true
				funcs[d.Name.Name] = true
				continue
			}
			decls[recvName(d.Recv.List[0].Type)+"."+d.Name.Name] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					decls[s.Name.Name] = true
					addMembers(s.Name.Name, s.Type, decls)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						decls[n.Name] = true
					}
				}
			}
		}
	}
}

func addMembers(typ string, expr ast.Expr, decls map[string]bool) {
	var fields *ast.FieldList
	switch e := expr.(type) {
	case *ast.StructType:
		fields = e.Fields
	case *ast.InterfaceType:
		fields = e.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			decls[typ+"."+n.Name] = true
		}
		if len(f.Names) == 0 { // embedded: named by its type
			decls[typ+"."+recvName(f.Type)] = true
		}
	}
}

// recvName is a receiver's or an embedded field's type name, without
// pointer, package or type parameters.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

var (
	qualified = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(?:\(\))?$`)
	testName  = regexp.MustCompile(`^(?:Test|Benchmark|Fuzz)[A-Z]\w*$`)
	fileExt   = regexp.MustCompile(`\.(go|c|h|md|sh|mod|jsonl|json|yaml)$`)
)

// check returns a problem for each name in text's code spans that does not
// exist. What it checks:
//
//	`internal/x/`, `docs/run.md`, `Makefile`: a path in the repository (a
//	    path whose first element is one of the repository's, or a bare
//	    file name with a source extension, which must then be at the root)
//	`cfg.Params`, `cgroup.Slice.KillLeft`: a declaration of the package of
//	    that name (a function, type, variable or constant; a method, field
//	    or interface method of a type)
//	`TestSoak`: a test, benchmark or fuzz function somewhere
//	`make bench`: the Makefile's targets
//	`k8s.io/api`: a module go.mod requires, or a package in one
//
// Anything else (a kernel file, a JSON key, a command line) is left to the
// docs checker or to the reader.
func (a *archChecker) check(text string) []string {
	var out []string
	for _, s := range spans(text) {
		if p := a.spanProblem(s); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// spans are the code spans of text's lines outside fenced blocks.
func spans(text string) []string {
	var out []string
	inFence := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			out = append(out, strings.TrimSpace(m[1]))
		}
	}
	return out
}

func (a *archChecker) spanProblem(s string) string {
	if rest, ok := strings.CutPrefix(s, "make "); ok {
		for _, target := range strings.Fields(rest) {
			a.nTargets++
			if !a.targets[target] {
				return fmt.Sprintf("`%s`: the Makefile has no target %s", s, target)
			}
		}
		return ""
	}
	if strings.ContainsAny(s, " *{") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "-") {
		return ""
	}
	first, _, hasSlash := strings.Cut(s, "/")
	switch {
	case hasSlash && strings.Contains(first, "."):
		a.nModules++
		for _, m := range a.modules {
			if s == m || strings.HasPrefix(s, m+"/") {
				return ""
			}
		}
		return fmt.Sprintf("`%s`: go.mod requires no such module", s)
	case hasSlash || fileExt.MatchString(s) || s == "Makefile":
		if hasSlash {
			if _, err := os.Stat(filepath.Join(a.root, first)); err != nil {
				return "" // not the repository's: proc/stat, a cgroup's file
			}
		}
		a.paths++
		if _, err := os.Stat(filepath.Join(a.root, filepath.FromSlash(strings.TrimSuffix(s, "/")))); err != nil {
			return fmt.Sprintf("`%s`: no such file or directory in the repository", s)
		}
		return ""
	case testName.MatchString(s):
		a.tests++
		if !a.funcs[s] {
			return fmt.Sprintf("`%s`: no such test or benchmark", s)
		}
		return ""
	}
	m := qualified.FindStringSubmatch(s)
	if m == nil || len(a.byName[m[1]]) == 0 || m[1] == "main" {
		return "" // not a package's name: cpu.stat, a key
	}
	a.idents++
	name := m[2]
	if m[3] != "" {
		name += "." + m[3]
	}
	for _, dir := range a.byName[m[1]] {
		if a.dirs[dir][name] {
			return ""
		}
	}
	return fmt.Sprintf("`%s`: package %s (%s) declares no %s", s, m[1], strings.Join(a.byName[m[1]], ", "), name)
}

// TestInternalPrintsNothing holds ARCHITECTURE's rule that no package under
// internal/ writes to the process's stdout or stderr by itself: what it has
// to say is data (a result's warnings, an error), or goes to a writer its
// caller hands in. It names neither os.Stdout nor os.Stderr (but to hand a
// file descriptor to a child, as run -- CMD --show-output does) and calls
// no fmt.Print, log or print.
func TestInternalPrintsNothing(t *testing.T) {
	for _, p := range printsIn(t, "../../internal") {
		t.Errorf("%s: what a package finds is data, or goes to a writer it is handed", p)
	}
	fake := "package x\nimport (\"fmt\"; \"log\"; \"os\")\nfunc f() { fmt.Println(1); log.Printf(\"\"); println(); fmt.Fprintln(os.Stderr); _ = os.Stdout.Fd() }\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(fake), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := len(printsIn(t, dir)); n != 4 {
		t.Errorf("the check found %d prints in a file with 4 (and one Fd): %q", n, printsIn(t, dir))
	}
}

// printsIn lists where the non-test Go files under root print.
func printsIn(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			what := ""
			switch n := n.(type) {
			case *ast.SelectorExpr:
				x, ok := n.X.(*ast.Ident)
				if !ok {
					break
				}
				switch {
				case x.Name == "os" && (n.Sel.Name == "Stdout" || n.Sel.Name == "Stderr"):
					if up, ok := stack[len(stack)-2].(*ast.SelectorExpr); !ok || up.Sel.Name != "Fd" {
						what = "os." + n.Sel.Name
					}
				case x.Name == "fmt" && strings.HasPrefix(n.Sel.Name, "Print"), x.Name == "log":
					what = x.Name + "." + n.Sel.Name
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") {
					what = id.Name
				}
			}
			if what != "" {
				out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
