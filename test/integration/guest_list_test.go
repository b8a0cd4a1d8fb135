//go:build linux

package integration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The v2 guest runs the tests that cgroup v2 or the guest changes, listed
// in test/vm/v2/guest.sh. Every name there is a test of this package (a
// renamed test would otherwise drop out of the guest unseen), and every
// test that skips off v2 is listed (it runs nowhere else). It reads the
// sources, so it runs on the host only; it needs no root.
func TestGuestListsTheV2Tests(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "vm", "v2", "guest.sh"))
	require.NoError(t, err)
	listed := guestTests(string(script))
	require.NotEmpty(t, listed, "no tests='...' list in guest.sh")

	fset := token.NewFileSet()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	have := map[string]bool{}
	v2Only := regexp.MustCompile(`Version != 2 \{\s*t\.Skip`)
	var onlyV2 []string
	for _, name := range files {
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			have[fn.Name.Name] = true
			body := string(src[fset.Position(fn.Pos()).Offset:fset.Position(fn.End()).Offset])
			if v2Only.MatchString(body) {
				onlyV2 = append(onlyV2, fn.Name.Name)
			}
		}
	}
	for _, n := range listed {
		assert.True(t, have[n], "guest.sh lists %s, which is no test here", n)
	}
	require.NotEmpty(t, onlyV2, "the v2-only tests were not found: has their skip changed?")
	for _, n := range onlyV2 {
		assert.Contains(t, listed, n, "%s skips off v2, so it runs only in the guest: list it in test/vm/v2/guest.sh", n)
	}
}

// guestTests are the first words of the lines of guest.sh's tests='...'.
func guestTests(script string) []string {
	_, rest, ok := strings.Cut(script, "\ntests='\n")
	if !ok {
		return nil
	}
	var names []string
	for _, line := range strings.Split(rest, "\n") {
		if line == "'" {
			return names
		}
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return nil
}
