package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesListsBcrypt(t *testing.T) {
	assert.Contains(t, Names(), "bcrypt")
}

// --cost and config.cost keep today's meaning: default 4, allowed 4–31.
func TestBcryptDeclaresCost(t *testing.T) {
	s, err := Lookup("bcrypt")
	require.NoError(t, err)
	require.Len(t, s.Params, 1)
	p := s.Params[0]
	assert.Equal(t, "cost", p.Name)
	assert.Equal(t, 4, p.Default)
	assert.Equal(t, [2]int{4, 31}, [2]int{p.Min, p.Max})
}

func TestNewRefusesWithBadConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		args Args
		msg  string
	}{
		{"bcrypt", Args{"cost": 3}, "bcrypt cost 3 outside 4–31"},
		{"bcrypt", Args{"cost": 32}, "bcrypt cost 32 outside 4–31"},
		{"md5", Args{"cost": 4}, `unknown workload "md5"`},
	} {
		_, err := New(c.name, c.args)
		assert.ErrorIs(t, err, ErrBadConfig)
		assert.ErrorContains(t, err, c.msg)
	}
}

// A parameter left out takes its default; one the workload does not take
// is no reason to refuse it.
func TestNewFillsDefaultsAndIgnoresOthers(t *testing.T) {
	w, err := New("bcrypt", Args{"size_mib": 64})
	require.NoError(t, err)
	assert.Equal(t, 4, w.(*bcryptWork).cost)
	assert.NoError(t, w.Do())
}

func TestRegisterTwicePanics(t *testing.T) {
	s, err := Lookup("bcrypt")
	require.NoError(t, err)
	assert.Panics(t, func() { register(s) })
}

// The bare bcrypt call at the harness's default cost: `make bench` compares
// the harness's per-hash time with this.
func BenchmarkBcryptCost4(b *testing.B) {
	w, err := New("bcrypt", Args{"cost": 4})
	require.NoError(b, err)
	for b.Loop() {
		if err := w.Do(); err != nil {
			b.Fatal(err)
		}
	}
}
