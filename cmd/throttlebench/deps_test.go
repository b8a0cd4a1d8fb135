package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mustLink are the libraries the design names for their jobs. If a change
// drops one of them from the binary, the job has most likely been written
// by hand again: this test fails, in `make check`, before that is merged.
// Size is no reason to drop one: the image size test (test/docker,
// TestImageSize) is a ceiling against regressions, not a target.
var mustLink = map[string]string{
	"gonum.org/v1/gonum/stat":                  "internal/stats' mean and variance",
	"github.com/containerd/cgroups/v3/cgroup1": "internal/cgroup's v1 slices",
	"github.com/containerd/cgroups/v3/cgroup2": "internal/cgroup's v2 slices",
	"k8s.io/api/batch/v1":                      "internal/kube's Jobs",
	"gonum.org/v1/plot/plotter":                "internal/plot's charts",
}

func TestBinaryLinksNamedLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	for pkg, job := range mustLink {
		if !slices.Contains(deps, pkg) {
			t.Errorf("throttlebench does not link %s (%s): use the library for its job rather than a hand-written copy", pkg, job)
		}
	}
}
