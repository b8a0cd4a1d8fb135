//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A v2 cgroup's cpu.pressure, read through the library: both totals where
// the kernel keeps both; no pressure, and no error, where the file is
// absent (a kernel without PSI, psi=0, the top cgroup) or on v1; some
// alone, full unknown rather than 0, where the file has no full line
// (before Linux 5.13: the fixture).
func TestPressure(t *testing.T) {
	t.Parallel()
	dir := func(t *testing.T, pressure string) string {
		d := t.TempDir()
		// Every cgroup has a cpu.stat; without one the library reads no
		// pressure either.
		require.NoError(t, os.WriteFile(filepath.Join(d, "cpu.stat"), []byte("usage_usec 1000\n"), 0o644))
		if pressure != "" {
			require.NoError(t, os.WriteFile(filepath.Join(d, "cpu.pressure"), []byte(pressure), 0o644))
		}
		return d
	}
	v2 := func(d string) Cgroup {
		return Cgroup{Hierarchy: Hierarchy{Version: 2, MountPoint: filepath.Dir(d), MountRoot: "/"}, Path: "/" + filepath.Base(d), Dir: d}
	}

	both := dir(t, "some avg10=12.00 avg60=3.10 avg300=0.70 total=1500250\nfull avg10=4.00 avg60=1.00 avg300=0.20 total=400125\n")
	p, ok, err := v2(both).Pressure()
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 1500250*time.Microsecond, p.Some)
	assert.Equal(t, 400125*time.Microsecond, p.Full)
	assert.True(t, p.FullOK)

	fixture, err := filepath.Abs("testdata/pressure-some-only")
	require.NoError(t, err)
	p, ok, err = v2(fixture).Pressure()
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 2345678*time.Microsecond, p.Some)
	assert.False(t, p.FullOK, "no full line: full is not known, not 0")

	_, ok, err = v2(dir(t, "")).Pressure()
	require.NoError(t, err)
	assert.False(t, ok, "no cpu.pressure: no pressure")

	c := v2(both)
	c.Version = 1
	_, ok, err = c.Pressure()
	require.NoError(t, err)
	assert.False(t, ok, "v1 keeps no pressure per cgroup")
}
