package cgroup

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dockerID is the container ID used by the docker-v1 and outside-root fixtures.
const dockerID = "4e693e134bdc04ea4b619676acc6054e88f517b5dcdef52c7ec31c069294e29e"

// fixture is a Host reading the tree testdata/<name>, and the directory on
// disk that stands for /sys/fs/cgroup in it.
func fixture(name string) (Host, string) {
	root := filepath.Join("testdata", name)
	return Host{Root: root}, filepath.Join(root, "sys/fs/cgroup")
}

// fixtureMount is a fresh directory that stands in for a hierarchy's
// mount point (mp), and the fixture's root above it, its Hierarchy.Root:
// the files below mp are read, written and removed beneath mp as beneath
// a cgroupfs mount (cgroupfs.fixtureMagic), and nowhere else.
func fixtureMount(t *testing.T) (mp, root string) {
	t.Helper()
	root = t.TempDir()
	mp = filepath.Join(root, "cg")
	require.NoError(t, os.Mkdir(mp, 0o755))
	return mp, root
}

func assertInf(t *testing.T, got float64) {
	t.Helper()
	assert.True(t, math.IsInf(got, 1), "want +Inf, got %v", got)
}

func TestCPUHierarchy(t *testing.T) {
	tests := []struct {
		fixture string
		version int
		want    Hierarchy // MountPoint relative to the fixture's sys/fs/cgroup
	}{
		{"hybrid", 0, Hierarchy{Version: 1, MountPoint: "cpu", MountRoot: "/", Acct: "cpuacct"}},
		{"hybrid", 1, Hierarchy{Version: 1, MountPoint: "cpu", MountRoot: "/", Acct: "cpuacct"}},
		{"v1-host", 0, Hierarchy{Version: 1, MountPoint: "cpu,cpuacct", MountRoot: "/", Acct: "cpu,cpuacct"}},
		{"v1-host", 1, Hierarchy{Version: 1, MountPoint: "cpu,cpuacct", MountRoot: "/", Acct: "cpu,cpuacct"}},
		{"v2", 0, Hierarchy{Version: 2, MountPoint: "", MountRoot: "/"}},
		{"v2", 2, Hierarchy{Version: 2, MountPoint: "", MountRoot: "/"}},
		{"docker-v1", 0, Hierarchy{Version: 1, MountPoint: "cpu,cpuacct", MountRoot: "/docker/" + dockerID, Acct: "cpu,cpuacct"}},
		{"docker-v2", 0, Hierarchy{Version: 2, MountPoint: "", MountRoot: "/"}},
		{"v1-burst", 1, Hierarchy{Version: 1, MountPoint: "cpu,cpuacct", MountRoot: "/", Acct: "cpu,cpuacct"}},
		{"v1-old-kernel", 1, Hierarchy{Version: 1, MountPoint: "cpu,cpuacct", MountRoot: "/", Acct: "cpu,cpuacct"}},
		{"mount-space", 0, Hierarchy{Version: 2, MountPoint: "my cgroup", MountRoot: "/"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/v%d", tt.fixture, tt.version), func(t *testing.T) {
			h, cg := fixture(tt.fixture)
			got, err := h.CPUHierarchy(tt.version)
			require.NoError(t, err)
			want := tt.want
			want.MountPoint = filepath.Join(cg, want.MountPoint)
			want.Root = h.Root
			if want.Acct != "" {
				want.Acct = filepath.Join(cg, want.Acct)
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestCPUHierarchyNoCPUController(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		version int
	}{
		// On this machine cgroup2 is mounted at /sys/fs/cgroup/unified, but
		// the cpu controller is bound to v1: cgroup.controllers is empty.
		{"hybrid asked for v2", "hybrid", 2},
		{"v1 host asked for v2", "v1-host", 2},
		{"v2 asked for v1", "v2", 1},
		{"v2 without cpu, any version", "v2-nocpu", 0},
		{"v2 without cpu, v2", "v2-nocpu", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := fixture(tt.fixture)
			got, err := h.CPUHierarchy(tt.version)
			assert.ErrorIs(t, err, ErrNoCPUController)
			assert.Zero(t, got)

			_, err = h.Self(tt.version)
			assert.ErrorIs(t, err, ErrNoCPUController)
		})
	}
}

func TestCPUHierarchyMissingMountInfo(t *testing.T) {
	_, err := Host{Root: filepath.Join("testdata", "does-not-exist")}.CPUHierarchy(0)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestCPUHierarchyMalformedMountInfo(t *testing.T) {
	h, _ := fixture("malformed-mountinfo")
	_, err := h.CPUHierarchy(0)
	assert.ErrorIs(t, err, ErrParse)
	_, err = h.Self(0)
	assert.ErrorIs(t, err, ErrParse)
}

func TestSelf(t *testing.T) {
	tests := []struct {
		fixture string
		version int
		path    string // the kernel's cgroup path
		dir     string // relative to the fixture's sys/fs/cgroup
		hierVer int
	}{
		{"hybrid", 0, "/", "cpu", 1},
		{"hybrid", 1, "/", "cpu", 1},
		{"v1-host", 0, "/user.slice/user-1000.slice/session-2.scope", "cpu,cpuacct/user.slice/user-1000.slice/session-2.scope", 1},
		{"v2", 0, "/user.slice/app", "user.slice/app", 2},
		{"v2", 2, "/user.slice/app", "user.slice/app", 2},
		// The container's own cgroup is the mount root: it lives at the mount point itself.
		{"docker-v1", 0, "/docker/" + dockerID, "cpu,cpuacct", 1},
		{"docker-v2", 0, "/", "", 2},
		{"v1-burst", 0, "/burst", "cpu,cpuacct/burst", 1},
		{"v1-old-kernel", 0, "/job", "cpu,cpuacct/job", 1},
		{"mount-space", 0, "/job 1", "my cgroup/job 1", 2},
		{"colon-path", 0, "/system.slice/runner:job:7.scope", "system.slice/runner:job:7.scope", 2},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			h, cg := fixture(tt.fixture)
			got, err := h.Self(tt.version)
			require.NoError(t, err)
			assert.Equal(t, tt.hierVer, got.Version)
			assert.Equal(t, tt.path, got.Path)
			assert.Equal(t, filepath.Join(cg, tt.dir), got.Dir)
			if tt.fixture != "colon-path" { // see TestLimitsColonPath
				assert.DirExists(t, got.Dir)
			}
		})
	}
}

func TestSelfMountPointIsContainerCgroup(t *testing.T) {
	h, cg := fixture("docker-v1")
	self, err := h.Self(0)
	require.NoError(t, err)
	assert.Equal(t, self.MountPoint, self.Dir)
	assert.Equal(t, filepath.Join(cg, "cpu,cpuacct"), self.Dir)
}

func TestSelfOutsideMountRoot(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
	}{
		// The mount shows /docker/<id>, the process sits in /system.slice/...
		{"v1 container mount, host cgroup", "outside-root"},
		// In a cgroup namespace the kernel shows cgroups above the
		// namespace root as "/..": they cannot be reached through a mount
		// made inside the namespace.
		{"cgroup namespace, cgroup above its root", "cgroupns-outside"},
		// A mount made outside the namespace: its root shows as "/..", and
		// where the namespace root lies below it is unknown.
		{"cgroup namespace, mount root above it", "cgroupns-mount-above"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := fixture(tt.fixture)
			_, err := h.CPUHierarchy(0)
			require.NoError(t, err, "the hierarchy itself is found")
			got, err := h.Self(0)
			assert.Error(t, err)
			assert.Zero(t, got, "no directory for a cgroup outside the mount")
		})
	}
}

func TestSelfNoCPULine(t *testing.T) {
	h, _ := fixture("no-cpu-line")
	_, err := h.Self(0)
	assert.ErrorIs(t, err, ErrParse)
}

func TestSelfMalformedProcCgroup(t *testing.T) {
	h, _ := fixture("malformed-proc-cgroup")
	_, err := h.Self(0)
	assert.ErrorIs(t, err, ErrParse)
}

func TestSelfMissingProcCgroup(t *testing.T) {
	// A copy of the v2 fixture without proc/self/cgroup.
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("testdata", "v2"))))
	require.NoError(t, os.Remove(filepath.Join(root, "proc/self/cgroup")))
	_, err := Host{Root: root}.Self(0)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestLimits(t *testing.T) {
	const period = 100 * time.Millisecond
	tests := []struct {
		fixture string
		want    Limits
		cpus    float64
	}{
		{"hybrid", Limits{Period: period, Quota: Unlimited}, math.Inf(1)},
		{"v1-host", Limits{Period: period, Quota: Unlimited}, math.Inf(1)},
		{"v2", Limits{Period: period, Quota: Unlimited}, math.Inf(1)},
		{"docker-v1", Limits{Period: period, Quota: 20 * time.Millisecond}, 0.2},
		{"docker-v2", Limits{Period: period, Quota: 150 * time.Millisecond}, 1.5},
		{"v1-burst", Limits{Period: period, Quota: 100 * time.Millisecond, Burst: 50 * time.Millisecond}, 1},
		{"v1-old-kernel", Limits{Period: period, Quota: 50 * time.Millisecond}, 0.5},
		{"mount-space", Limits{Period: period, Quota: 25 * time.Millisecond}, 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			h, _ := fixture(tt.fixture)
			self, err := h.Self(0)
			require.NoError(t, err)
			got, err := self.Limits()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if math.IsInf(tt.cpus, 1) {
				assertInf(t, got.CPUs())
			} else {
				assert.InDelta(t, tt.cpus, got.CPUs(), 1e-12)
			}
		})
	}
}

func TestLimitsV2WithoutCPUController(t *testing.T) {
	// The hierarchy is not found, but a caller may still look at the cgroup:
	// without cpu.max it has no limit, and without the cpu controller its
	// cpu.stat has no bandwidth counters.
	h, cg := fixture("v2-nocpu")
	_, err := h.CPUHierarchy(0)
	require.ErrorIs(t, err, ErrNoCPUController)

	hier := Hierarchy{Version: 2, MountPoint: cg, MountRoot: "/", Root: h.Root}
	leaf, err := hier.At("/user.slice/app")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cg, "user.slice/app"), leaf.Dir)

	l, err := leaf.Limits()
	require.NoError(t, err)
	assert.Equal(t, Limits{Period: 0, Quota: Unlimited, Burst: 0}, l)
	assertInf(t, l.CPUs())

	s, err := leaf.Stat()
	require.NoError(t, err)
	assert.Nil(t, s.NrPeriods)
	assert.Nil(t, s.NrThrottled)
	assert.Nil(t, s.ThrottledTime)
	assert.Nil(t, s.NrBursts)
	assert.Nil(t, s.BurstTime)

	chain, err := leaf.Chain()
	require.NoError(t, err)
	require.Len(t, chain, 3)
	for _, lv := range chain {
		assert.Equal(t, Limits{Quota: Unlimited}, lv.Limits, lv.Dir)
	}
	assert.InDelta(t, 4.0, EffectiveCPUs(chain, 4), 0)
	assertInf(t, EffectiveCPUs(chain, 0))
}

func TestLimitsColonPath(t *testing.T) {
	// ':' may not appear in a module's file names, so the cgroup directory of
	// the colon-path fixture is made here, in a copy.
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("testdata", "colon-path"))))
	dir := filepath.Join(root, "sys/fs/cgroup/system.slice/runner:job:7.scope")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu.max"), []byte("30000 100000\n"), 0o644))

	self, err := Host{Root: root}.Self(0)
	require.NoError(t, err)
	assert.Equal(t, dir, self.Dir)
	l, err := self.Limits()
	require.NoError(t, err)
	assert.InDelta(t, 0.3, l.CPUs(), 1e-12)
}

func TestLimitsMalformed(t *testing.T) {
	h, _ := fixture("malformed-files")
	self, err := h.Self(0)
	require.NoError(t, err)
	_, err = self.Limits()
	assert.ErrorIs(t, err, ErrParse)
	_, err = self.Stat()
	assert.ErrorIs(t, err, ErrParse)
	_, err = self.Chain()
	assert.ErrorIs(t, err, ErrParse)
}

func TestLimitsUnreadable(t *testing.T) {
	// A directory where cpu.max should be: the read fails with something
	// other than "does not exist", and that error is reported.
	dir, root := fixtureMount(t)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "cpu.max"), 0o755))
	_, err := Cgroup{Hierarchy: Hierarchy{Version: 2, MountPoint: dir, MountRoot: "/", Root: root}, Path: "/", Dir: dir}.Limits()
	assert.Error(t, err)
	assert.NotErrorIs(t, err, os.ErrNotExist)
}

func TestLimitsV2Burst(t *testing.T) {
	h, cg := fixture("v2")
	l, err := Cgroup{Hierarchy: Hierarchy{Version: 2, MountPoint: cg, MountRoot: "/", Root: h.Root}, Dir: filepath.Join(cg, "user.slice")}.Limits()
	require.NoError(t, err)
	assert.Equal(t, Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond, Burst: 20 * time.Millisecond}, l)
}

func TestLimitsUnlimitedBurstIsZero(t *testing.T) {
	dir, root := fixtureMount(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu.max.burst"), []byte("max\n"), 0o644))
	l, err := Cgroup{Hierarchy: Hierarchy{Version: 2, MountPoint: dir, MountRoot: "/", Root: root}, Dir: dir}.Limits()
	require.NoError(t, err)
	assert.Equal(t, Limits{Quota: Unlimited}, l)
}

func TestStat(t *testing.T) {
	tests := []struct {
		fixture string
		want    CPUStat
	}{
		{"hybrid", CPUStat{NrPeriods: u64(0), NrThrottled: u64(0), ThrottledTime: dur(0), NrBursts: u64(0), BurstTime: dur(0)}},
		{"v1-host", CPUStat{NrPeriods: u64(0), NrThrottled: u64(0), ThrottledTime: dur(0)}},
		{"v2", CPUStat{
			NrPeriods: u64(250), NrThrottled: u64(25), ThrottledTime: dur(2500 * time.Microsecond),
			NrBursts: u64(1), BurstTime: dur(700 * time.Microsecond),
		}},
		{"docker-v1", CPUStat{
			NrPeriods: u64(5000), NrThrottled: u64(4000), ThrottledTime: dur(320 * time.Second),
			NrBursts: u64(0), BurstTime: dur(0),
		}},
		{"docker-v2", CPUStat{
			NrPeriods: u64(40), NrThrottled: u64(12), ThrottledTime: dur(2500 * time.Microsecond),
			NrBursts: u64(0), BurstTime: dur(0),
		}},
		{"v1-burst", CPUStat{
			NrPeriods: u64(500), NrThrottled: u64(20), ThrottledTime: dur(2500 * time.Microsecond),
			NrBursts: u64(7), BurstTime: dur(123456789 * time.Nanosecond),
		}},
		{"v1-old-kernel", CPUStat{NrPeriods: u64(120), NrThrottled: u64(30), ThrottledTime: dur(987654321 * time.Nanosecond)}},
		{"mount-space", CPUStat{
			NrPeriods: u64(10), NrThrottled: u64(1), ThrottledTime: dur(75 * time.Microsecond),
			NrBursts: u64(0), BurstTime: dur(0),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			h, _ := fixture(tt.fixture)
			self, err := h.Self(0)
			require.NoError(t, err)
			got, err := self.Stat()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestStatOldKernelHasNoBurst(t *testing.T) {
	h, _ := fixture("v1-old-kernel")
	self, err := h.Self(1)
	require.NoError(t, err)
	s, err := self.Stat()
	require.NoError(t, err)
	assert.Nil(t, s.NrBursts)
	assert.Nil(t, s.BurstTime)
	require.NotNil(t, s.ThrottledTime)

	l, err := self.Limits()
	require.NoError(t, err)
	assert.Zero(t, l.Burst, "no cpu.cfs_burst_us: no burst")
}

func TestStatMissingFile(t *testing.T) {
	// A cgroup directory without cpu.stat reads as "nothing reported",
	// never as zeroes.
	dir, root := fixtureMount(t)
	s, err := Cgroup{Hierarchy: Hierarchy{Version: 1, MountPoint: dir, MountRoot: "/", Root: root}, Dir: dir}.Stat()
	require.NoError(t, err)
	assert.Equal(t, CPUStat{}, s)
}

func TestChain(t *testing.T) {
	const period = 100 * time.Millisecond
	unl := Limits{Period: period, Quota: Unlimited}
	tests := []struct {
		fixture string
		dirs    []string // relative to the fixture's sys/fs/cgroup, leaf first
		limits  []Limits
		cpus    int
		eff     float64
	}{
		{
			fixture: "hybrid",
			dirs:    []string{"cpu"},
			limits:  []Limits{unl},
			cpus:    4, eff: 4,
		},
		{
			fixture: "v1-host",
			dirs: []string{
				"cpu,cpuacct/user.slice/user-1000.slice/session-2.scope",
				"cpu,cpuacct/user.slice/user-1000.slice",
				"cpu,cpuacct/user.slice",
				"cpu,cpuacct",
			},
			limits: []Limits{unl, {Period: period, Quota: 150 * time.Millisecond}, unl, unl},
			cpus:   8, eff: 1.5,
		},
		{
			fixture: "v2",
			dirs:    []string{"user.slice/app", "user.slice", ""},
			limits: []Limits{
				unl,
				{Period: period, Quota: 50 * time.Millisecond, Burst: 20 * time.Millisecond},
				{Quota: Unlimited}, // the root cgroup has no cpu.max
			},
			cpus: 4, eff: 0.5,
		},
		{
			fixture: "docker-v1",
			dirs:    []string{"cpu,cpuacct"},
			limits:  []Limits{{Period: period, Quota: 20 * time.Millisecond}},
			cpus:    4, eff: 0.2,
		},
		{
			fixture: "docker-v2",
			dirs:    []string{""},
			limits:  []Limits{{Period: period, Quota: 150 * time.Millisecond}},
			cpus:    4, eff: 1.5,
		},
		{
			fixture: "v1-old-kernel",
			dirs:    []string{"cpu,cpuacct/job", "cpu,cpuacct"},
			limits:  []Limits{{Period: period, Quota: 50 * time.Millisecond}, unl},
			cpus:    2, eff: 0.5,
		},
		{
			fixture: "mount-space",
			dirs:    []string{"my cgroup/job 1", "my cgroup"},
			limits:  []Limits{{Period: period, Quota: 25 * time.Millisecond}, {Quota: Unlimited}},
			cpus:    1, eff: 0.25,
		},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			h, cg := fixture(tt.fixture)
			self, err := h.Self(0)
			require.NoError(t, err)
			chain, err := self.Chain()
			require.NoError(t, err)
			require.Len(t, chain, len(tt.dirs))
			for i, lv := range chain {
				assert.Equal(t, filepath.Join(cg, tt.dirs[i]), lv.Dir, "level %d", i)
				assert.Equal(t, tt.limits[i], lv.Limits, "level %d (%s)", i, lv.Dir)
			}
			assert.Equal(t, self.Dir, chain[0].Dir, "leaf first")
			assert.Equal(t, self.MountPoint, chain[len(chain)-1].Dir, "ends at the mount point")
			assert.InDelta(t, tt.eff, EffectiveCPUs(chain, tt.cpus), 1e-12)
		})
	}
}

func TestChainEffectiveCPUsAgainstAllowedCPUs(t *testing.T) {
	h, _ := fixture("v2")
	self, err := h.Self(2)
	require.NoError(t, err)
	chain, err := self.Chain()
	require.NoError(t, err)
	assert.InDelta(t, 0.5, EffectiveCPUs(chain, 64), 1e-12, "the quota binds")
	assert.InDelta(t, 0.5, EffectiveCPUs(chain, 0), 1e-12, "CPU count unknown")

	h, _ = fixture("docker-v2")
	self, err = h.Self(0)
	require.NoError(t, err)
	chain, err = self.Chain()
	require.NoError(t, err)
	assert.InDelta(t, 1.0, EffectiveCPUs(chain, 1), 1e-12, "one CPU allowed binds")
}

func TestChainDirOutsideMountPoint(t *testing.T) {
	// A Cgroup whose Dir is not below its mount point is read from
	// nowhere: its files are opened beneath the mount point, and the
	// chain stops at it, refused, rather than climb.
	h, cg := fixture("docker-v1")
	c := Cgroup{Hierarchy: Hierarchy{Version: 1, MountPoint: filepath.Join(cg, "cpu"), MountRoot: "/", Root: h.Root}, Dir: filepath.Join(cg, "cpu,cpuacct")}
	_, err := c.Chain()
	require.ErrorIs(t, err, errNotCgroupfs)
	assert.ErrorContains(t, err, "leaves the mount point")

	// Below its own mount point it reads its limit (0.2 CPUs) and stops
	// at the top.
	c.MountPoint = c.Dir
	chain, err := c.Chain()
	require.NoError(t, err)
	require.Len(t, chain, 1)
	assert.Equal(t, c.Dir, chain[0].Dir)
	assert.InDelta(t, 0.2, chain[0].Limits.CPUs(), 1e-12)
}

func TestHierarchyAt(t *testing.T) {
	const mp = "/sys/fs/cgroup/cpu,cpuacct"
	docker := "/docker/" + dockerID
	tests := []struct {
		name      string
		mountRoot string
		cgPath    string
		wantPath  string
		wantDir   string
	}{
		{"root", "/", "/", "/", mp},
		{"empty path is the root", "/", "", "/", mp},
		{"nested", "/", "/user.slice/app", "/user.slice/app", mp + "/user.slice/app"},
		{"relative path", "/", "user.slice", "/user.slice", mp + "/user.slice"},
		{"trailing slash and dots", "/", "/user.slice/./app/", "/user.slice/app", mp + "/user.slice/app"},
		{"colon", "/", "/a:b", "/a:b", mp + "/a:b"},
		{"space", "/", "/job 1", "/job 1", mp + "/job 1"},
		{"container cgroup is the mount point", docker, docker, docker, mp},
		{"below the container cgroup", docker, docker + "/sub", docker + "/sub", mp + "/sub"},
		{"mount root with trailing slash", docker + "/", docker + "/sub", docker + "/sub", mp + "/sub"},
		{"mount root without leading slash", "docker/" + dockerID, docker, docker, mp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hier := Hierarchy{Version: 1, MountPoint: mp, MountRoot: tt.mountRoot}
			got, err := hier.At(tt.cgPath)
			require.NoError(t, err)
			assert.Equal(t, Cgroup{Hierarchy: hier, Path: tt.wantPath, Dir: tt.wantDir}, got)
		})
	}
}

func TestHierarchyAtOutsideMountRoot(t *testing.T) {
	const mp = "/sys/fs/cgroup"
	docker := "/docker/" + dockerID
	tests := []struct {
		name      string
		mountRoot string
		cgPath    string
	}{
		{"host cgroup under a container mount", docker, "/system.slice/sshd.service"},
		{"top of the hierarchy under a container mount", docker, "/"},
		{"sibling sharing a name prefix", docker, docker + "0"},
		{"parent of the mount root", docker, "/docker"},
		{"above the namespace root", "/", "/.."},
		{"beside the namespace root", "/", "/../../system.slice/sshd.service"},
		{"dot-dot climbs out of the mount root", docker, docker + "/../other"},
		{"mount root above the namespace root", "/..", "/"},
		{"mount root above the namespace root, nested", "/..", "/user.slice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Hierarchy{Version: 2, MountPoint: mp, MountRoot: tt.mountRoot}.At(tt.cgPath)
			assert.Error(t, err)
			assert.Zero(t, got)
		})
	}
}

func TestRelCgroupPath(t *testing.T) {
	docker := "/docker/" + dockerID
	tests := []struct {
		name    string
		root, p string
		want    string
		ok      bool
	}{
		{"host root", "/", "/a/b", "/a/b", true},
		{"host root, root path", "/", "/", "/", true},
		{"empty root", "", "/a", "/a", true},
		{"equal", docker, docker, "/", true},
		{"below", docker, docker + "/x/y", "/x/y", true},
		{"root with trailing slash", docker + "/", docker + "/x", "/x", true},
		{"root without leading slash", "docker/abc", "/docker/abc/x", "/x", true},
		{"outside", docker, "/system.slice", "", false},
		{"name prefix only", docker, docker + "0/x", "", false},
		{"parent", docker, "/docker", "", false},
		{"top", docker, "/", "", false},
		{"above the namespace root", "/", "/..", "", false},
		{"beside the namespace root", "/", "/../../x", "", false},
		{"mount root above the namespace root", "/..", "/", "", false},
		{"both above the namespace root", "/..", "/../x", "/x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := relCgroupPath(tt.root, tt.p)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The usage counter of the process's own cgroup: where v1 mounts cpuacct
// apart, it is read there, and only for a cgroup of the same path.
func TestAccountingUsage(t *testing.T) {
	tests := []struct {
		fixture string
		dir     string // of the accounting cgroup, relative to sys/fs/cgroup
		usage   time.Duration
	}{
		{"hybrid", "cpuacct", 682601068594},
		{"v1-host", "cpu,cpuacct/user.slice/user-1000.slice/session-2.scope", 52 * time.Second},
		{"v2", "user.slice/app", 400 * time.Millisecond},
		{"docker-v2", "", 123456 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			h, cg := fixture(tt.fixture)
			self, err := h.Self(0)
			require.NoError(t, err)
			acct, err := h.Accounting(self)
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(cg, tt.dir), acct.Dir)
			got, err := acct.Usage()
			require.NoError(t, err)
			assert.Equal(t, tt.usage, got)
		})
	}
}

func TestAccountingUnknown(t *testing.T) {
	// In cpu:/job but cpuacct:/ — the root's usage is every process's.
	h, _ := fixture("hybrid-split")
	self, err := h.Self(0)
	require.NoError(t, err)
	_, err = h.Accounting(self)
	assert.ErrorIs(t, err, ErrNoUsage)

	// No cpuacct mounted at all.
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("testdata", "hybrid"))))
	mi := filepath.Join(root, "proc/self/mountinfo")
	data, err := os.ReadFile(mi)
	require.NoError(t, err)
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, "cpuacct") {
			kept = append(kept, l)
		}
	}
	require.NoError(t, os.WriteFile(mi, []byte(strings.Join(kept, "\n")), 0o644))
	self, err = Host{Root: root}.Self(0)
	require.NoError(t, err)
	_, err = Host{Root: root}.Accounting(self)
	assert.ErrorIs(t, err, ErrNoUsage)

	// A cgroup without the counter file: unknown, not an error of its own kind.
	h, _ = fixture("docker-v1")
	self, err = h.Self(0)
	require.NoError(t, err)
	acct, err := h.Accounting(self)
	require.NoError(t, err)
	_, err = acct.Usage()
	assert.ErrorIs(t, err, ErrNoUsage)
}

func TestUsageMalformed(t *testing.T) {
	dir, root := fixtureMount(t)
	for _, c := range []struct {
		version int
		file    string
		data    string
		want    error
	}{
		{1, "cpuacct.usage", "lots\n", ErrParse},
		{2, "cpu.stat", "usage_usec -1\n", ErrParse},
		{2, "cpu.stat", "nr_periods 3\n", ErrNoUsage},
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, c.file), []byte(c.data), 0o644))
		_, err := Cgroup{Hierarchy: Hierarchy{Version: c.version, MountPoint: dir, Root: root}, Dir: dir}.Usage()
		assert.ErrorIs(t, err, c.want, "%s: %q", c.file, c.data)
		os.Remove(filepath.Join(dir, c.file))
	}
}

// A weight reads on v2's scale from either version's file, and a cgroup
// without one (the top) has none.
func TestWeightOnEachScale(t *testing.T) {
	for _, c := range []struct {
		version int
		file    string
		value   string
		want    int
	}{
		{1, "cpu.shares", "1024\n", 100},
		{1, "cpu.shares", "102400\n", 10000},
		{1, "cpu.shares", "2\n", 1},
		{1, "cpu.shares", "262144\n", 25600},
		{2, "cpu.weight", "100\n", 100},
		{2, "cpu.weight", "10000\n", 10000},
		{2, "", "", 0},
	} {
		dir, root := fixtureMount(t)
		if c.file != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, c.file), []byte(c.value), 0o644))
		}
		w, err := Cgroup{Hierarchy: Hierarchy{Version: c.version, MountPoint: dir, Root: root}, Dir: dir}.Weight()
		require.NoError(t, err)
		assert.Equal(t, c.want, w, "v%d %s %q", c.version, c.file, c.value)
	}
	dir, root := fixtureMount(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu.weight"), []byte("heavy\n"), 0o644))
	_, err := Cgroup{Hierarchy: Hierarchy{Version: 2, MountPoint: dir, Root: root}, Dir: dir}.Weight()
	assert.ErrorIs(t, err, ErrParse)
}
