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

// famTree is a fake cgroup hierarchy below a temporary directory: a
// directory per cgroup, with the files given.
func famTree(t *testing.T, version int, files map[string]string) Hierarchy {
	mp, root := fixtureMount(t)
	for name, body := range files {
		p := filepath.Join(mp, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return Hierarchy{Version: version, MountPoint: mp, MountRoot: "/", Root: root}
}

func idOf(t *testing.T, dir string) uint64 {
	id, err := DirID(dir)
	require.NoError(t, err)
	return id
}

func throttledOf(m Member) *time.Duration {
	if m.Stat == nil {
		return nil
	}
	return m.Stat.ThrottledTime
}

// v1: the pod /kubepods/pod (limited) holding container a (limited) and b,
// under an unlimited /kubepods; traced at the pod, at a, and at b's child.
func TestFamilyV1(t *testing.T) {
	hier := famTree(t, 1, map[string]string{
		"cpu.cfs_quota_us":                      "-1",
		"cpu.stat":                              "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n",
		"kubepods/cpu.cfs_quota_us":             "-1",
		"kubepods/cpu.stat":                     "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n",
		"kubepods/pod/cpu.cfs_quota_us":         "50000",
		"kubepods/pod/cpu.stat":                 "nr_periods 9\nnr_throttled 7\nthrottled_time 700\n",
		"kubepods/pod/a/cpu.cfs_quota_us":       "20000",
		"kubepods/pod/a/cpu.stat":               "nr_periods 9\nnr_throttled 9\nthrottled_time 900\n",
		"kubepods/pod/b/cpu.cfs_quota_us":       "-1",
		"kubepods/pod/b/cpu.stat":               "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n",
		"kubepods/pod/b/inner/cpu.cfs_quota_us": "-1",
		"kubepods/pod/b/inner/cpu.stat":         "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n",
		"kubepods/other/cpu.cfs_quota_us":       "10000",
		"kubepods/other/cpu.stat":               "throttled_time 5\n",
	})
	mp := hier.MountPoint
	pod := filepath.Join(mp, "kubepods/pod")

	fam, err := hier.Family(pod)
	require.NoError(t, err)
	got := map[string]Member{}
	for _, m := range fam {
		got[m.Path] = m
	}
	assert.Len(t, got, 6, "the pod, a, b, b/inner, /kubepods and the root; not the sibling /kubepods/other: %+v", fam)
	for path, want := range map[string]struct {
		dir       string
		rel       string
		throttled *time.Duration
	}{
		"/kubepods/pod":         {"kubepods/pod", RelTarget, durPtr(700)},
		"/kubepods/pod/a":       {"kubepods/pod/a", RelDescendant, durPtr(900)},
		"/kubepods/pod/b":       {"kubepods/pod/b", RelDescendant, durPtr(0)},
		"/kubepods/pod/b/inner": {"kubepods/pod/b/inner", RelDescendant, durPtr(0)},
		"/kubepods":             {"kubepods", RelAncestor, nil}, // unlimited: not read
		"/":                     {".", RelAncestor, nil},
	} {
		m, ok := got[path]
		if !assert.True(t, ok, "%s missing", path) {
			continue
		}
		assert.Equal(t, idOf(t, filepath.Join(mp, want.dir)), m.ID, "%s: the id is its directory's inode", path)
		assert.Equal(t, want.rel, m.Relation, path)
		assert.Equal(t, want.throttled, throttledOf(m), path)
	}

	// Traced at a container: its limited pod is an ancestor, read.
	fam, err = hier.Family(filepath.Join(pod, "a"))
	require.NoError(t, err)
	require.Len(t, fam, 4)
	assert.Equal(t, Member{ID: idOf(t, pod), Path: "/kubepods/pod", Relation: RelAncestor, Stat: fam[1].Stat}, fam[1])
	assert.Equal(t, durPtr(700), throttledOf(fam[1]), "the limited ancestor's counter")

	_, err = hier.Family(t.TempDir())
	assert.ErrorContains(t, err, "is not in the cgroup hierarchy")
	_, err = hier.Family(filepath.Join(mp, "gone"))
	assert.Error(t, err, "a traced cgroup that is not there")
}

// v2: limits in cpu.max; a path below a container's mount root.
func TestFamilyV2MountRoot(t *testing.T) {
	hier := famTree(t, 2, map[string]string{
		"cgroup.controllers": "cpu",
		"cpu.stat":           "usage_usec 5\n",
		"pod/cpu.max":        "20000 100000\n",
		"pod/cpu.stat":       "usage_usec 9\nnr_periods 3\nnr_throttled 2\nthrottled_usec 1500\n",
		"pod/c/cpu.max":      "max 100000\n",
		"pod/c/cpu.stat":     "usage_usec 9\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n",
	})
	hier.MountRoot = "/docker/abc"
	fam, err := hier.Family(filepath.Join(hier.MountPoint, "pod/c"))
	require.NoError(t, err)
	require.Len(t, fam, 3)
	assert.Equal(t, "/docker/abc/pod/c", fam[0].Path)
	assert.Equal(t, RelTarget, fam[0].Relation)
	assert.Equal(t, durPtr(0), throttledOf(fam[0]))
	assert.Equal(t, "/docker/abc/pod", fam[1].Path)
	assert.Equal(t, durPtr(1500*time.Microsecond), throttledOf(fam[1]), "cpu.max limited: read")
	assert.Equal(t, "/docker/abc", fam[2].Path)
	assert.Nil(t, fam[2].Stat, "the top: no cpu.max, no limit")
}

func TestFamilyOver(t *testing.T) {
	stat := func(ns time.Duration) *CPUStat { return &CPUStat{ThrottledTime: durPtr(ns)} }
	start := []Member{
		{ID: 1, Path: "/pod", Relation: RelTarget, Stat: stat(100)},
		{ID: 2, Path: "/pod/a", Relation: RelDescendant, Stat: stat(50)},
		{ID: 3, Path: "/pod/gone", Relation: RelDescendant, Stat: stat(7)},
		{ID: 4, Path: "/", Relation: RelAncestor},
		{ID: 6, Path: "/pod/fed", Relation: RelDescendant, Stat: stat(10)},
		{ID: 8, Path: "/pod/reborn", Relation: RelDescendant, Stat: stat(90)},
	}
	end := []Member{
		{ID: 1, Path: "/pod", Relation: RelTarget, Stat: stat(160)},
		{ID: 2, Path: "/pod/a", Relation: RelDescendant, Stat: stat(80)},
		{ID: 4, Path: "/", Relation: RelAncestor},
		{ID: 5, Path: "/pod/new", Relation: RelDescendant, Stat: stat(30)},
		{ID: 7, Path: "/pod/nostat", Relation: RelDescendant, Stat: &CPUStat{}},
		{ID: 8, Path: "/pod/reborn", Relation: RelDescendant, Stat: stat(20)},
		// read just before its removal, appended
		{ID: 6, Path: "/pod/fed", Relation: RelDescendant, Stat: stat(45)},
	}
	got := map[uint64]Counted{}
	for _, c := range FamilyOver(start, end) {
		got[c.ID] = c
	}
	assert.Equal(t, map[uint64]Counted{
		1: {ID: 1, Path: "/pod", Relation: RelTarget, Throttled: durPtr(60)},
		2: {ID: 2, Path: "/pod/a", Relation: RelDescendant, Throttled: durPtr(30)},
		3: {ID: 3, Path: "/pod/gone", Relation: RelDescendant},                       // removed unread: unknown
		4: {ID: 4, Path: "/", Relation: RelAncestor},                                 // never read
		5: {ID: 5, Path: "/pod/new", Relation: RelDescendant, Throttled: durPtr(30)}, // made within: all of it
		6: {ID: 6, Path: "/pod/fed", Relation: RelDescendant, Throttled: durPtr(35)},
		7: {ID: 7, Path: "/pod/nostat", Relation: RelDescendant}, // no throttled time in its cpu.stat
		8: {ID: 8, Path: "/pod/reborn", Relation: RelDescendant}, // went backwards: no true change
	}, got)
}
