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

// machinery are the packages that make, trace and ask D-Bus about cgroups.
// The configuration, compare and the plans and renderers built on them
// (a sweep's steps, latency's tables, kube's Jobs, the report's builder,
// sample's usage) name limits and read results; none may pull these in
// (issue 26: config imported internal/cgroup for its Limits, so every
// package that reads a configuration linked containerd/cgroups and, through
// it, cilium/ebpf; issue 35: sweep.Step carried the runner's options).
var machinery = []string{
	"github.com/throttlebench/throttlebench/internal/cgroup",
	"github.com/containerd/cgroups/v3",
	"github.com/cilium/ebpf",
	"github.com/godbus/dbus/v5",
}

func TestConfigurationPullsNoMachinery(t *testing.T) {
	for _, pkg := range []string{"config", "compare", "bandwidth", "plan", "latency", "kube", "report/build", "sweep", "usage"} {
		out, err := exec.Command("go", "list", "-deps", "../../internal/"+pkg).Output()
		require.NoError(t, err, "go list -deps internal/%s", pkg)
		deps := strings.Fields(string(out))
		for _, m := range machinery {
			if slices.Contains(deps, m) {
				t.Errorf("internal/%s imports %s: plans and results are plain values (internal/plan, internal/bandwidth); keep the machinery out of them", pkg, m)
			}
		}
	}
}
