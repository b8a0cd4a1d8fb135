package host

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/throttlebench/throttlebench/internal/report"
)

func TestCPUModel(t *testing.T) {
	assert.Equal(t, "AMD EPYC 7B13", cpuModel([]byte("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n")))
	assert.Equal(t, "", cpuModel([]byte("processor\t: 0\n")))
}

// Info reads the CPU model below the root it is given, takes the node from
// the environment through report.NodeName, and leaves empty what it cannot
// read.
func TestInfo(t *testing.T) {
	started := time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	t.Setenv(report.NodeEnv, "node-a.example")
	h := Info(filepath.Join("testdata", "epyc"), started)
	assert.Equal(t, "AMD EPYC 7B13", h.CPUModel)
	assert.Equal(t, "2025-03-01T11:00:00Z", h.StartedAt, "in UTC")
	assert.Equal(t, "node-a.example", h.Node)
	assert.Equal(t, runtime.NumCPU(), h.NumCPU)
	assert.Equal(t, runtime.Version(), h.GoVersion)

	t.Setenv(report.NodeEnv, "Not_A_Node")
	h = Info(t.TempDir(), started)
	assert.Empty(t, h.CPUModel, "no cpuinfo below the root")
	assert.Empty(t, h.Node, "not a node name")
}
