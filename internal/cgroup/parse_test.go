package cgroup

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func u64(v uint64) *uint64               { return &v }
func dur(d time.Duration) *time.Duration { return &d }

func TestUnescapeMountPath(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"},
		{"empty", "", ""},
		{"space", `/sys/fs/cgroup/my\040cgroup`, "/sys/fs/cgroup/my cgroup"},
		{"tab", `/a\011b`, "/a\tb"},
		{"newline", `/a\012b`, "/a\nb"},
		{"backslash", `/a\134b`, `/a\b`},
		{"several", `/a\040b\040c\134`, `/a b c\`},
		{"escape at the start", `\040a`, " a"},
		{"digit after escape", `/a\0401`, "/a 1"},
		{"trailing backslash", `/a\`, `/a\`},
		{"short escape", `/a\04`, `/a\04`},
		{"not octal", `/a\09x`, `/a\09x`},
		{"out of byte range", `/a\400`, `/a\400`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, unescapeMountPath(tt.in))
		})
	}
}

func TestParseMountInfo(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Mount
	}{
		{
			name: "hybrid host (this machine)",
			in: "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" +
				"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
				"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n" +
				"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n" +
				"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
			want: []Mount{
				{Root: "/", MountPoint: "/sys/fs/cgroup", FSType: "tmpfs", SuperOpts: []string{"rw", "mode=755"}},
				{Root: "/", MountPoint: "/sys/fs/cgroup/cpu", FSType: "cgroup", SuperOpts: []string{"rw", "cpu"}},
				{Root: "/", MountPoint: "/sys/fs/cgroup/cpuacct", FSType: "cgroup", SuperOpts: []string{"rw", "cpuacct"}},
				{Root: "/", MountPoint: "/sys/fs/cgroup/systemd", FSType: "cgroup", SuperOpts: []string{"rw", "name=systemd"}},
				{Root: "/", MountPoint: "/sys/fs/cgroup/unified", FSType: "cgroup2", SuperOpts: []string{"rw"}},
			},
		},
		{
			name: "optional fields",
			in:   "1416 1412 0:32 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid master:16 shared:3 - cgroup cgroup rw,cpu,cpuacct\n",
			want: []Mount{
				{Root: "/docker/abc", MountPoint: "/sys/fs/cgroup/cpu,cpuacct", FSType: "cgroup", SuperOpts: []string{"rw", "cpu", "cpuacct"}},
			},
		},
		{
			name: "escaped space in root and mount point",
			in:   `34 22 0:29 /job\0401 /sys/fs/cgroup/my\040cgroup rw shared:9 - cgroup2 cgroup2 rw,nsdelegate`,
			want: []Mount{
				{Root: "/job 1", MountPoint: "/sys/fs/cgroup/my cgroup", FSType: "cgroup2", SuperOpts: []string{"rw", "nsdelegate"}},
			},
		},
		{
			name: "blank lines are skipped, last line without newline",
			in:   "\n   \n707 706 0:30 / /sys/fs/cgroup ro - cgroup2 cgroup rw\n\n708 706 0:31 / /proc rw - proc proc rw",
			want: []Mount{
				{Root: "/", MountPoint: "/sys/fs/cgroup", FSType: "cgroup2", SuperOpts: []string{"rw"}},
				{Root: "/", MountPoint: "/proc", FSType: "proc", SuperOpts: []string{"rw"}},
			},
		},
		{
			name: "no super options",
			in:   "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2\n",
			want: []Mount{
				{Root: "/", MountPoint: "/sys/fs/cgroup/unified", FSType: "cgroup2"},
			},
		},
		{
			name: "empty",
			in:   "",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMountInfo([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseMountInfoMalformed(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"no separator", "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime cgroup cgroup rw,cpu\n"},
		{"separator glued to a field", "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime -cgroup cgroup rw,cpu\n"},
		{"too few fields before the separator", "32 31 0:29 / rw,relatime - cgroup cgroup rw,cpu\n"},
		{"too few fields after the separator", "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup\n"},
		{"good line then a bad one", "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\ngarbage\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMountInfo([]byte(tt.in))
			assert.ErrorIs(t, err, ErrParse)
			assert.Nil(t, got)
		})
	}
}

func TestParseProcCgroup(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []ProcCgroup
	}{
		{
			name: "hybrid host (this machine)",
			in:   "9:name=systemd:/\n4:memory:/process_api/d31757a6a553f0a6f28d8ce618c94cf6\n2:cpuacct:/\n1:cpu:/\n0::/\n",
			want: []ProcCgroup{
				{ID: 9, Controllers: []string{"name=systemd"}, Path: "/"},
				{ID: 4, Controllers: []string{"memory"}, Path: "/process_api/d31757a6a553f0a6f28d8ce618c94cf6"},
				{ID: 2, Controllers: []string{"cpuacct"}, Path: "/"},
				{ID: 1, Controllers: []string{"cpu"}, Path: "/"},
				{ID: 0, Path: "/"},
			},
		},
		{
			name: "co-mounted controllers",
			in:   "4:cpu,cpuacct:/docker/abc\n",
			want: []ProcCgroup{{ID: 4, Controllers: []string{"cpu", "cpuacct"}, Path: "/docker/abc"}},
		},
		{
			name: "v2 only",
			in:   "0::/user.slice/app\n",
			want: []ProcCgroup{{ID: 0, Path: "/user.slice/app"}},
		},
		{
			name: "colons in the path",
			in:   "0::/system.slice/runner:job:7.scope\n4:cpu,cpuacct:/a:b\n",
			want: []ProcCgroup{
				{ID: 0, Path: "/system.slice/runner:job:7.scope"},
				{ID: 4, Controllers: []string{"cpu", "cpuacct"}, Path: "/a:b"},
			},
		},
		{
			name: "space in the path is not escaped",
			in:   "0::/job 1\n",
			want: []ProcCgroup{{ID: 0, Path: "/job 1"}},
		},
		{
			name: "outside the cgroup namespace",
			in:   "0::/../../system.slice/sshd.service\n",
			want: []ProcCgroup{{ID: 0, Path: "/../../system.slice/sshd.service"}},
		},
		{
			name: "blank lines",
			in:   "\n0::/\n\n",
			want: []ProcCgroup{{ID: 0, Path: "/"}},
		},
		{
			name: "empty",
			in:   "",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcCgroup([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseProcCgroupMalformed(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"one field", "garbage\n"},
		{"two fields", "cpu:/\n"},
		{"hierarchy id not a number", "x:cpu:/\n"},
		{"empty hierarchy id", ":cpu:/\n"},
		{"negative hierarchy id", "-1:cpu:/\n"},
		{"good line then a bad one", "0::/\n1:cpu\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcCgroup([]byte(tt.in))
			assert.ErrorIs(t, err, ErrParse)
			assert.Nil(t, got)
		})
	}
}

func TestParseCPUStat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want CPUStat
	}{
		{
			name: "v1 with burst (ns)",
			in:   "nr_periods 500\nnr_throttled 20\nthrottled_time 2500000\nnr_bursts 7\nburst_time 123456789\n",
			want: CPUStat{
				NrPeriods: u64(500), NrThrottled: u64(20), ThrottledTime: dur(2500 * time.Microsecond),
				NrBursts: u64(7), BurstTime: dur(123456789 * time.Nanosecond),
			},
		},
		{
			name: "v1 old kernel without burst",
			in:   "nr_periods 120\nnr_throttled 30\nthrottled_time 987654321\n",
			want: CPUStat{NrPeriods: u64(120), NrThrottled: u64(30), ThrottledTime: dur(987654321)},
		},
		{
			name: "v1 with schedstats fields",
			in:   "nr_periods 1\nnr_throttled 0\nthrottled_time 0\nwait_sum 12345\n",
			want: CPUStat{NrPeriods: u64(1), NrThrottled: u64(0), ThrottledTime: dur(0)},
		},
		{
			name: "v2 with cpu controller (usec)",
			in: "usage_usec 400000\nuser_usec 350000\nsystem_usec 50000\nnr_periods 250\nnr_throttled 25\n" +
				"throttled_usec 2500\nnr_bursts 1\nburst_usec 700\n",
			want: CPUStat{
				NrPeriods: u64(250), NrThrottled: u64(25), ThrottledTime: dur(2500 * time.Microsecond),
				NrBursts: u64(1), BurstTime: dur(700 * time.Microsecond),
			},
		},
		{
			name: "v2 without cpu controller",
			in:   "usage_usec 400000\nuser_usec 350000\nsystem_usec 50000\ncore_sched.force_idle_usec 0\n",
			want: CPUStat{},
		},
		{
			name: "blank lines and surrounding space",
			in:   "\n  nr_periods   3  \n\n",
			want: CPUStat{NrPeriods: u64(3)},
		},
		{
			name: "empty",
			in:   "",
			want: CPUStat{},
		},
		{
			name: "longest times",
			in:   "throttled_time 9223372036854775807\nburst_usec 9223372036854775\n",
			want: CPUStat{ThrottledTime: dur(math.MaxInt64), BurstTime: dur(9223372036854775 * time.Microsecond)},
		},
		{
			name: "largest counter",
			in:   "nr_periods 18446744073709551615\n",
			want: CPUStat{NrPeriods: u64(math.MaxUint64)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCPUStat([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseCPUStatMalformed(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"key without value", "nr_periods\n"},
		{"too many fields", "nr_periods 1 2\n"},
		{"negative", "nr_throttled -1\n"},
		{"not a number", "throttled_usec lots\n"},
		{"fraction", "throttled_time 1.5\n"},
		{"overflow", "nr_periods 18446744073709551616\n"},
		// Times no time.Duration holds used to wrap around to negative ones.
		{"throttled_time beyond a Duration", "throttled_time 9223372036854775808\n"},
		{"throttled_usec beyond a Duration", "throttled_usec 18446744073709551615\n"},
		{"burst_usec beyond a Duration", "burst_usec 9223372036854776\n"},
		{"unknown key with a bad value", "usage_usec x\n"},
		{"good lines then a bad one", "nr_periods 1\nnr_throttled 2\nthrottled_time\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCPUStat([]byte(tt.in))
			assert.ErrorIs(t, err, ErrParse)
			assert.Equal(t, CPUStat{}, got, "no partial result")
		})
	}
}

func TestParseCPUMax(t *testing.T) {
	tests := []struct {
		name          string
		in            string
		quota, period time.Duration
	}{
		{"unlimited", "max 100000\n", Unlimited, 100 * time.Millisecond},
		{"half a CPU", "50000 100000\n", 50 * time.Millisecond, 100 * time.Millisecond},
		{"one and a half CPUs", "150000 100000", 150 * time.Millisecond, 100 * time.Millisecond},
		{"other period", "2000 10000\n", 2 * time.Millisecond, 10 * time.Millisecond},
		{"quota only", "20000\n", 20 * time.Millisecond, 100 * time.Millisecond},
		{"max only", "max", Unlimited, 100 * time.Millisecond},
		{"surrounding space", "  max   250000 \n", Unlimited, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, p, err := parseCPUMax([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.quota, q, "quota")
			assert.Equal(t, tt.period, p, "period")
		})
	}
}

func TestParseCPUMaxMalformed(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty", ""},
		{"only space", " \n"},
		{"three fields", "50000 100000 1\n"},
		{"quota not a number", "lots 100000\n"},
		{"negative quota (v1 style)", "-1 100000\n"},
		{"zero period", "max 0\n"},
		{"period not a number", "max forever\n"},
		{"negative period", "50000 -100000\n"},
		{"period max", "50000 max\n"},
		{"period beyond a Duration", "max 9223372036854775807\n"},
		{"quota beyond a Duration", "9223372036854776 100000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, p, err := parseCPUMax([]byte(tt.in))
			assert.ErrorIs(t, err, ErrParse)
			assert.Zero(t, q)
			assert.Zero(t, p)
		})
	}
}

func TestParseMicros(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want time.Duration
	}{
		{"period", "100000\n", 100 * time.Millisecond},
		{"zero", "0\n", 0},
		{"v1 unlimited", "-1\n", Unlimited},
		{"v2 unlimited", "max\n", Unlimited},
		{"surrounding space", "  50000  \n", 50 * time.Millisecond},
		{"one microsecond", "1", time.Microsecond},
		{"the most a Duration holds", "9223372036854775", 9223372036854775 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMicros([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseMicrosMalformed(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty", ""},
		{"only space", "\n"},
		{"not a number", "lots\n"},
		{"negative other than -1", "-2\n"},
		{"fraction", "1.5\n"},
		{"two numbers", "20000 100000\n"},
		{"unit suffix", "100ms\n"},
		{"beyond a Duration", "9223372036854775807\n"},
		{"just beyond a Duration", "9223372036854776\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMicros([]byte(tt.in))
			assert.ErrorIs(t, err, ErrParse)
			assert.Zero(t, got)
		})
	}
}

func TestCPUStatSub(t *testing.T) {
	t.Run("v1 nanoseconds", func(t *testing.T) {
		before, err := parseCPUStat([]byte("nr_periods 100\nnr_throttled 10\nthrottled_time 1000000\nnr_bursts 1\nburst_time 500000\n"))
		require.NoError(t, err)
		after, err := parseCPUStat([]byte("nr_periods 150\nnr_throttled 14\nthrottled_time 3500000\nnr_bursts 3\nburst_time 1500000\n"))
		require.NoError(t, err)
		assert.Equal(t, CPUStat{
			NrPeriods: u64(50), NrThrottled: u64(4), ThrottledTime: dur(2500 * time.Microsecond),
			NrBursts: u64(2), BurstTime: dur(time.Millisecond),
		}, after.Sub(before))
	})

	t.Run("v2 microseconds", func(t *testing.T) {
		before, err := parseCPUStat([]byte("usage_usec 9\nnr_periods 100\nnr_throttled 10\nthrottled_usec 1000\nnr_bursts 1\nburst_usec 500\n"))
		require.NoError(t, err)
		after, err := parseCPUStat([]byte("usage_usec 99\nnr_periods 150\nnr_throttled 14\nthrottled_usec 3500\nnr_bursts 3\nburst_usec 1500\n"))
		require.NoError(t, err)
		assert.Equal(t, CPUStat{
			NrPeriods: u64(50), NrThrottled: u64(4), ThrottledTime: dur(2500 * time.Microsecond),
			NrBursts: u64(2), BurstTime: dur(time.Millisecond),
		}, after.Sub(before))
	})

	t.Run("a counter that went backwards is not reported", func(t *testing.T) {
		before, err := parseCPUStat([]byte("nr_periods 100\nnr_throttled 10\nthrottled_time 1000000\n"))
		require.NoError(t, err)
		after, err := parseCPUStat([]byte("nr_periods 3\nnr_throttled 12\nthrottled_time 5\n"))
		require.NoError(t, err)
		d := after.Sub(before)
		assert.Nil(t, d.NrPeriods)
		assert.Nil(t, d.ThrottledTime)
		assert.Equal(t, u64(2), d.NrThrottled)
	})

	t.Run("v1 ns and v2 usec agree", func(t *testing.T) {
		zero1, err := parseCPUStat([]byte("throttled_time 0\nburst_time 0\n"))
		require.NoError(t, err)
		zero2, err := parseCPUStat([]byte("throttled_usec 0\nburst_usec 0\n"))
		require.NoError(t, err)
		v1, err := parseCPUStat([]byte("throttled_time 2500000\nburst_time 7000\n"))
		require.NoError(t, err)
		v2, err := parseCPUStat([]byte("throttled_usec 2500\nburst_usec 7\n"))
		require.NoError(t, err)

		d1, d2 := v1.Sub(zero1), v2.Sub(zero2)
		require.NotNil(t, d1.ThrottledTime)
		require.NotNil(t, d2.ThrottledTime)
		assert.Equal(t, 2500*time.Microsecond, *d1.ThrottledTime)
		assert.Equal(t, *d1.ThrottledTime, *d2.ThrottledTime)
		assert.InDelta(t, 2.5, float64(*d1.ThrottledTime)/float64(time.Millisecond), 1e-12)
		require.NotNil(t, d1.BurstTime)
		assert.Equal(t, *d1.BurstTime, *d2.BurstTime)
	})

	t.Run("nil propagation", func(t *testing.T) {
		full := CPUStat{NrPeriods: u64(10), NrThrottled: u64(2), ThrottledTime: dur(5), NrBursts: u64(1), BurstTime: dur(3)}
		old := CPUStat{NrPeriods: u64(4), NrThrottled: u64(1), ThrottledTime: dur(2)}

		d := full.Sub(old)
		assert.Equal(t, CPUStat{NrPeriods: u64(6), NrThrottled: u64(1), ThrottledTime: dur(3)}, d,
			"a counter missing before is missing from the change")

		d = old.Sub(full)
		assert.Nil(t, d.NrBursts, "a counter missing after is missing from the change")
		assert.Nil(t, d.BurstTime)

		assert.Equal(t, CPUStat{}, CPUStat{}.Sub(CPUStat{}))
		assert.Equal(t, CPUStat{}, full.Sub(CPUStat{}))
		assert.Equal(t, CPUStat{}, CPUStat{}.Sub(full))
	})

	t.Run("no change is zero, not nil", func(t *testing.T) {
		s := CPUStat{NrPeriods: u64(10), NrThrottled: u64(2), ThrottledTime: dur(5), NrBursts: u64(0), BurstTime: dur(0)}
		assert.Equal(t, CPUStat{NrPeriods: u64(0), NrThrottled: u64(0), ThrottledTime: dur(0), NrBursts: u64(0), BurstTime: dur(0)}, s.Sub(s))
	})

	t.Run("does not alias its operands", func(t *testing.T) {
		before := CPUStat{NrPeriods: u64(1)}
		after := CPUStat{NrPeriods: u64(3)}
		d := after.Sub(before)
		*d.NrPeriods = 99
		assert.Equal(t, uint64(1), *before.NrPeriods)
		assert.Equal(t, uint64(3), *after.NrPeriods)
	})
}

func TestLimitsCPUs(t *testing.T) {
	tests := []struct {
		name string
		l    Limits
		want float64
	}{
		{"unlimited", Limits{Period: 100 * time.Millisecond, Quota: Unlimited}, math.Inf(1)},
		{"no bandwidth files", Limits{Quota: Unlimited}, math.Inf(1)},
		{"zero value", Limits{}, math.Inf(1)},
		{"quota without period", Limits{Quota: 20 * time.Millisecond}, math.Inf(1)},
		{"half", Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}, 0.5},
		{"one and a half", Limits{Period: 100 * time.Millisecond, Quota: 150 * time.Millisecond}, 1.5},
		{"fifth", Limits{Period: 100 * time.Millisecond, Quota: 20 * time.Millisecond}, 0.2},
		{"burst does not count", Limits{Period: 100 * time.Millisecond, Quota: 100 * time.Millisecond, Burst: 50 * time.Millisecond}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.l.CPUs()
			if math.IsInf(tt.want, 1) {
				assert.True(t, math.IsInf(got, 1), "want +Inf, got %v", got)
				return
			}
			assert.InDelta(t, tt.want, got, 1e-12)
		})
	}
}

func TestEffectiveCPUs(t *testing.T) {
	unl := Level{Dir: "/leaf", Limits: Limits{Period: 100 * time.Millisecond, Quota: Unlimited}}
	half := Level{Dir: "/parent", Limits: Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}}
	eight := Level{Dir: "/top", Limits: Limits{Period: 100 * time.Millisecond, Quota: 800 * time.Millisecond}}
	onePointFive := Level{Dir: "/x", Limits: Limits{Period: 100 * time.Millisecond, Quota: 150 * time.Millisecond}}

	tests := []struct {
		name        string
		chain       []Level
		cpusAllowed int
		want        float64
	}{
		{"unlimited chain, 2 CPUs", []Level{unl, unl}, 2, 2},
		{"limit 0.5, 4 CPUs", []Level{unl, half, unl}, 4, 0.5},
		{"limit 8, 2 CPUs", []Level{eight}, 2, 2},
		{"tightest level wins", []Level{eight, onePointFive, half}, 16, 0.5},
		{"order does not matter", []Level{half, eight}, 16, 0.5},
		{"CPU count unknown", []Level{unl, onePointFive}, 0, 1.5},
		{"negative CPU count is unknown", []Level{onePointFive}, -1, 1.5},
		{"empty chain", nil, 3, 3},
		{"nothing known", nil, 0, math.Inf(1)},
		{"unlimited and unknown", []Level{unl}, 0, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EffectiveCPUs(tt.chain, tt.cpusAllowed)
			if math.IsInf(tt.want, 1) {
				assert.True(t, math.IsInf(got, 1), "want +Inf, got %v", got)
				return
			}
			assert.InDelta(t, tt.want, got, 1e-12)
		})
	}
}

func TestParseProcStartTime(t *testing.T) {
	got, err := parseProcStartTime([]byte("17338 (cat) R 17333 17333 14356 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 48889 3133440 411 18446744073709551615\n"))
	require.NoError(t, err)
	assert.Equal(t, uint64(48889), got)

	got, err = parseProcStartTime([]byte("42 (a) b (c)) S 1 42 42 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 777 3133440\n"))
	require.NoError(t, err)
	assert.Equal(t, uint64(777), got, "fields start after the last ')'")

	for _, c := range []struct{ name, in string }{
		{"empty", ""},
		{"no command name", "42 cat R 1 2 3"},
		{"too short", "42 (cat) R 1 2 3\n"},
		// Found by FuzzParseProcStartTime: the number's own error escaped without ErrParse.
		{"start time not a number", ")0 0 0 0 0 0 0 0 0 0 0 00 0 0 0 0 0 0 0 A"},
		{"negative start time", "42 (cat) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseProcStartTime([]byte(c.in))
			assert.ErrorIs(t, err, ErrParse)
		})
	}
}

// Lines longer than bufio.Scanner's 64 KiB default used to fail with
// bufio.ErrTooLong, which does not wrap ErrParse.
func TestParseLongLines(t *testing.T) {
	long := strings.Repeat("a", 70000)

	mounts, err := parseMountInfo([]byte("32 31 0:29 /" + long + " /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"))
	require.NoError(t, err)
	require.Len(t, mounts, 1)
	assert.Equal(t, "/"+long, mounts[0].Root)
	_, err = parseMountInfo([]byte(long))
	assert.ErrorIs(t, err, ErrParse)

	lines, err := parseProcCgroup([]byte("1:cpu:/" + long + "\n"))
	require.NoError(t, err)
	require.Len(t, lines, 1)
	assert.Equal(t, "/"+long, lines[0].Path)
	_, err = parseProcCgroup([]byte(long))
	assert.ErrorIs(t, err, ErrParse)

	s, err := parseCPUStat([]byte("nr_periods " + strings.Repeat("0", 70000) + "7\n"))
	require.NoError(t, err)
	assert.Equal(t, u64(7), s.NrPeriods)
	_, err = parseCPUStat([]byte(long))
	assert.ErrorIs(t, err, ErrParse)

	u, err := parseUsageUsec([]byte(long + "\nusage_usec 5\n"))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Microsecond, u)
}
