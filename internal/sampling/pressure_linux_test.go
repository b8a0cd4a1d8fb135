//go:build linux

package sampling

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// sample reads the sampled cgroup's cpu.pressure beside its usage: a
// series where the cgroup has the file (v2), none where it has not.
func TestRunReadsTheCgroupsPressure(t *testing.T) {
	for _, c := range []struct {
		name     string
		pressure string
		want     []float64
	}{
		{"v2", "some avg10=0.00 avg60=0.00 avg300=0.00 total=5000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n", []float64{0, 0}},
		{"no PSI", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "job")
			require.NoError(t, os.Mkdir(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu.stat"), []byte("usage_usec 0\n"), 0o644))
			if c.pressure != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu.pressure"), []byte(c.pressure), 0o644))
			}
			g := cgroup.Cgroup{Hierarchy: cgroup.Hierarchy{Version: 2, MountPoint: filepath.Dir(dir), MountRoot: "/"}, Path: "/job", Dir: dir}
			ms := time.Millisecond
			ctx, cancel := context.WithCancel(context.Background())
			s := &script{used: []time.Duration{0, 50 * ms, 50 * ms}, stop: cancel}
			f, _, err := Run(ctx, usage.Options{Interval: 100 * ms, Target: 0.01, Period: 100 * ms}, g, s, s, nil)
			require.NoError(t, err)
			assert.Equal(t, c.want, f.PressureSomeMs)
			assert.Equal(t, c.want, f.PressureFullMs)
			assert.Equal(t, c.want == nil, f.Summary.PressureSomeMs == nil)
		})
	}
}
