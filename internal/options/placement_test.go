package options

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/topology"
)

func seed16() (*topology.Topology, error) {
	return topology.Read("../topology/testdata/seed16")
}

// The allowed-set arithmetic: a cpuset must lie within the CPUs this
// process may use and those its cpuset parent offers; one per core must
// leave a CPU of the cpuset (or of this process's CPUs).
func TestCPUFactsCheck(t *testing.T) {
	f := &Placement{Mine: []int{0, 1, 2, 3, 8, 9, 10, 11}, Parent: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Layout: seed16}
	ok := func(c config.Config) { t.Helper(); assert.NoError(t, f.Check(c), "%+v", c) }
	bad := func(c config.Config, msg string) {
		t.Helper()
		err := f.Check(c)
		var ue *badinput.Error
		require.ErrorAs(t, err, &ue, "%+v", c)
		assert.Equal(t, msg, err.Error())
	}
	ok(config.Config{})
	ok(config.Config{Cpuset: []int{0, 9}})
	ok(config.Config{Cpuset: []int{8}, OnePerCore: true})
	bad(config.Config{Cpuset: []int{0, 4, 10}},
		`invalid --cpuset "0,4,10": CPU(s) 4,10 are not among the CPUs this process may use, 0-3,8-9`)

	// Without a cpuset: one per core of this process's CPUs.
	f.Mine = []int{99}
	bad(config.Config{OnePerCore: true},
		"invalid --one-per-core: it leaves no CPU of 99 (none of them is an online CPU the layout knows, online 0-15)")

	// What is not known is not held against the user; what --one-per-core
	// cannot do without is an error (exit 1), not bad input.
	f = &Placement{Layout: seed16}
	ok(config.Config{Cpuset: []int{100}})
	assert.EqualError(t, f.Check(config.Config{OnePerCore: true}), "--one-per-core: the CPUs this process may use are not known here")
	f = &Placement{Parent: []int{1}, Layout: func() (*topology.Topology, error) { return nil, errors.New("no sysfs") }}
	ok(config.Config{Cpuset: []int{1}})
	bad(config.Config{Cpuset: []int{0}}, `invalid --cpuset "0": CPU(s) 0 are not among the CPUs this process may use, 1`)
	err := f.Check(config.Config{Cpuset: []int{1}, OnePerCore: true})
	assert.EqualError(t, err, "--one-per-core: read the CPU layout: no sysfs")

	// A parent's cpuset with no CPUs (a v1 twin not set up) offers none:
	// every --cpuset is refused, whatever this process may use.
	f = &Placement{Mine: []int{0, 1}, Parent: []int{}, Layout: seed16}
	bad(config.Config{Cpuset: []int{0}},
		`invalid --cpuset "0": CPU(s) 0 are not among the CPUs this process may use, none: the cpuset its slice would be made in has no CPUs`)
	f.Mine = nil
	bad(config.Config{Cpuset: []int{1}},
		`invalid --cpuset "1": CPU(s) 1 are not among the CPUs this process may use, none: the cpuset its slice would be made in has no CPUs`)
}
