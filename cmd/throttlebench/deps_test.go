package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The image must stay at most 10 MiB (test/docker's TestImageSize checks
// the image itself). These packages once made it 17.6 MiB; linking one of
// them again fails here, in `make check`, with the reason. Weigh the binary
// with test/docker/weigh.sh before adding a dependency.
var heavy = map[string]string{
	"gonum.org/v1/plot":                 "its init registers all twelve Liberation faces (4.4 MB) and it links pdf, eps and tex output; internal/plot draws with vg directly",
	"gonum.org/v1/plot/plotter":         "imports gonum.org/v1/plot",
	"gonum.org/v1/plot/font/liberation": "all twelve Liberation faces (4.4 MB); one face is enough",
	"gonum.org/v1/gonum/mat":            "gonum/stat links gonum's matrices, BLAS and LAPACK (2 MB)",
	"github.com/godbus/dbus/v5":         "calls reflect.Type.Method, which stops the linker from dropping unused exported methods anywhere (with containerd/cgroups: 5.7 MB)",
	"google.golang.org/protobuf/proto":  "containerd/cgroups' statistics types (0.6 MB of code)",
	"github.com/cilium/ebpf":            "containerd/cgroups' device filters (0.35 MB)",
}

func TestBinaryLeavesOutHeavyPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps")
	fonts := 0
	for _, pkg := range strings.Fields(string(out)) {
		if why, ok := heavy[pkg]; ok {
			t.Errorf("throttlebench links %s: %s", pkg, why)
		}
		if strings.HasPrefix(pkg, "codeberg.org/go-fonts/") {
			fonts++
		}
	}
	assert.Equal(t, 1, fonts, "embedded font faces: the plots draw with one")
}
