package decl

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
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

// Values checks flag text and fills defaults, in declared order, under
// the result's keys; Complete does the same to a config read back.
func TestValuesAndComplete(t *testing.T) {
	s, err := Lookup("memtouch")
	require.NoError(t, err)
	ps, err := s.Values(map[string]string{"touch": "page"})
	require.NoError(t, err)
	b, err := json.Marshal(ps)
	require.NoError(t, err)
	assert.Equal(t, `{"buffer_bytes":1048576,"memory":"fresh","touch":"page"}`, string(b))
	_, err = s.Values(map[string]string{"memory": "stale"})
	assert.ErrorIs(t, err, ErrBadConfig)
	_, err = s.Values(map[string]string{"buffer": "12"})
	assert.ErrorIs(t, err, ErrBadConfig)

	full, err := s.Complete(report.Params{}.With("touch", "page").With("units", 3))
	require.NoError(t, err)
	assert.Equal(t, ps, full, "defaults filled, another workload's value dropped")
	_, err = s.Complete(report.Params{}.With("memory", 1))
	assert.ErrorIs(t, err, ErrBadConfig, "a word written as a number")
}

// The registry lists each workload once, in the order of their flags.
func TestRegistry(t *testing.T) {
	var names []string
	for _, s := range Specs() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"bcrypt", "spin", "memtouch", "command"}, names)
	assert.Equal(t, []string{"bcrypt", "command", "memtouch", "spin"}, Names())
}

// How results name each workload: the text line, compare's key, the
// gobench name's part.
func TestNaming(t *testing.T) {
	spec := func(name string) Spec {
		s, err := Lookup(name)
		require.NoError(t, err)
		return s
	}
	bc := report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4)}
	assert.Equal(t, "bcrypt cost 4", spec("bcrypt").TextOf(bc))
	assert.Empty(t, spec("bcrypt").KeyOf(bc), "cost is a key of its own")
	assert.Empty(t, spec("bcrypt").GobenchOf(bc))
	sp := report.Config{Workload: "spin", Params: report.Params{}.With("units", 10)}
	assert.Equal(t, "spin 10 units", spec("spin").TextOf(sp))
	assert.Equal(t, []string{"units=10"}, spec("spin").KeyOf(sp))
	assert.Equal(t, "/units=10", spec("spin").GobenchOf(sp))
	mt := report.Config{Workload: "memtouch", Batch: 100,
		Params: report.Params{}.With("buffer_bytes", 4096).With("memory", "reuse").With("touch", "all")}
	m := spec("memtouch")
	assert.Equal(t, "memtouch reuse 4096 bytes, touch all, 100 kept", m.TextOf(mt))
	assert.Equal(t, []string{"buffer=4096", "memory=reuse", "touch=all", "kept=100"}, m.KeyOf(mt))
	assert.Equal(t, "/memory=reuse/buffer=4096/touch=all", m.GobenchOf(mt))
	// A result written before --touch existed: page, and reuse kept one.
	old := report.Config{Workload: "memtouch", Batch: 100, Params: report.Params{}.With("buffer_bytes", 4096).With("memory", "reuse")}
	assert.Equal(t, "memtouch reuse 4096 bytes, touch page, 1 kept", m.TextOf(old))
	old.Params = old.Params.With("memory", "fresh")
	assert.Equal(t, []string{"buffer=4096", "memory=fresh", "touch=page"}, m.KeyOf(old))
}
