package workload

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
)

func TestNewRefusesWithBadConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		args args
		msg  string
	}{
		{"bcrypt", args{"cost": 3}, "bcrypt cost 3 outside 4–31"},
		{"bcrypt", args{"cost": 32}, "bcrypt cost 32 outside 4–31"},
		{"md5", args{"cost": 4}, `unknown workload "md5"`},
	} {
		_, err := newW(c.name, c.args)
		assert.ErrorIs(t, err, decl.ErrBadConfig)
		assert.ErrorContains(t, err, c.msg)
	}
}

// A parameter left out takes its default; one the workload does not take
// is no reason to refuse it.
func TestNewFillsDefaultsAndIgnoresOthers(t *testing.T) {
	w, err := newW("bcrypt", args{"size_mib": 64})
	require.NoError(t, err)
	assert.Equal(t, 4, w.(*bcryptWork).cost)
	assert.NoError(t, w.Do())
}

// args are a test's values by flag name, a word by its index in the
// parameter's Words (one past them to test a refusal), and "batch".
type args map[string]int

// newW is New with args turned into the workload's config.
func newW(name string, a args) (Workload, error) {
	s, err := decl.Lookup(name)
	if err != nil {
		return nil, err
	}
	var ps report.Params
	for _, p := range s.Params {
		v, ok := a[p.Name]
		if !ok {
			continue
		}
		if p.Words != nil && v >= 0 && v < len(p.Words) {
			ps = ps.With(p.Key(), p.Words[v])
			continue
		}
		ps = ps.With(p.Key(), v)
	}
	return New(name, ps, a["batch"])
}

// The bare bcrypt call at the harness's default cost: `make bench` compares
// the harness's per-hash time with this.
func BenchmarkBcryptCost4(b *testing.B) {
	w, err := newW("bcrypt", args{"cost": 4})
	require.NoError(b, err)
	for b.Loop() {
		if err := w.Do(); err != nil {
			b.Fatal(err)
		}
	}
}

// Every declared workload has an implementation, and every implementation
// a declaration.
func TestEveryDeclarationImplemented(t *testing.T) {
	assert.ElementsMatch(t, decl.Names(), slices.Collect(maps.Keys(impls)))
}

// bcrypt's declared bounds are the library's.
func TestBcryptBoundsAreTheLibrarys(t *testing.T) {
	assert.Equal(t, [2]int{bcrypt.MinCost, bcrypt.MaxCost}, [2]int{decl.BcryptMinCost, decl.BcryptMaxCost})
}
