package cgroup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUsageUsecOf(t *testing.T) {
	tests := []struct {
		name string
		data string
		want time.Duration
		err  error
	}{
		{"6.x", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_periods 0\n", 1500 * time.Microsecond, nil},
		{"not first", "user_usec 1\nusage_usec 7\n", 7 * time.Microsecond, nil},
		{"no newline at the end", "usage_usec 7", 7 * time.Microsecond, nil},
		{"spaces around", "  usage_usec\t 7 \n", 7 * time.Microsecond, nil},
		{"largest", "usage_usec 9223372036854775\n", 9223372036854775 * time.Microsecond, nil},
		{"a longer key is another key", "usage_usec_total 3\nusage_usec 4\n", 4 * time.Microsecond, nil},
		{"too large", "usage_usec 9223372036854776\n", 0, ErrParse},
		{"negative", "usage_usec -1\n", 0, ErrParse},
		{"not a number", "usage_usec 12a\n", 0, ErrParse},
		{"no value", "usage_usec \n", 0, ErrParse},
		{"missing", "user_usec 1\n", 0, ErrNoUsage},
		{"empty", "", 0, ErrNoUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := usageUsecOf([]byte(tt.data))
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Every cpu.stat of the fixture trees reads the same through both parsers.
func TestUsageUsecOfAgreesOnFixtures(t *testing.T) {
	n := 0
	require.NoError(t, filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "cpu.stat" {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		want, wantErr := parseUsageUsec(data)
		got, err := usageUsecOf(data)
		if wantErr != nil {
			assert.Error(t, err, path)
			return nil
		}
		n++
		assert.NoError(t, err, path)
		assert.Equal(t, want, got, path)
		return nil
	}))
	assert.Positive(t, n, "no fixture cpu.stat with usage_usec")
}

// counterAt writes a counter file and returns the cgroup it belongs to.
func counterAt(t *testing.T, version int, content string) (Cgroup, string) {
	t.Helper()
	dir, root := fixtureMount(t)
	name := "cpuacct.usage"
	if version == 2 {
		name = "cpu.stat"
	}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return Cgroup{Hierarchy: Hierarchy{Version: version, MountPoint: dir, Root: root}, Dir: dir}, path
}

func TestUsageFile(t *testing.T) {
	t.Run("v1 follows the counter", func(t *testing.T) {
		cg, path := counterAt(t, 1, "1500\n")
		u, err := cg.OpenUsage()
		require.NoError(t, err)
		defer u.Close()
		for _, v := range []int64{1500, 2500, 99999999999, 3} {
			// Written in place, as the kernel's value changes under an open file.
			require.NoError(t, os.WriteFile(path, []byte(strconv.FormatInt(v, 10)+"\n"), 0o644))
			got, err := u.Usage()
			require.NoError(t, err)
			assert.Equal(t, time.Duration(v), got)
			want, err := cg.Usage()
			require.NoError(t, err)
			assert.Equal(t, want, got, "as Cgroup.Usage reads it")
		}
	})
	t.Run("v2 follows the counter", func(t *testing.T) {
		cg, path := counterAt(t, 2, "usage_usec 1\n")
		u, err := cg.OpenUsage()
		require.NoError(t, err)
		defer u.Close()
		for _, v := range []int64{5, 1234567, 8} {
			require.NoError(t, os.WriteFile(path, []byte("usage_usec "+strconv.FormatInt(v, 10)+"\nuser_usec 1\nsystem_usec 2\n"), 0o644))
			got, err := u.Usage()
			require.NoError(t, err)
			assert.Equal(t, time.Duration(v)*time.Microsecond, got)
		}
	})
	t.Run("a long cpu.stat is read as far as the buffer", func(t *testing.T) {
		cg, _ := counterAt(t, 2, "usage_usec 9\n"+strings.Repeat("x 1\n", 1000))
		u, err := cg.OpenUsage()
		require.NoError(t, err)
		defer u.Close()
		got, err := u.Usage()
		require.NoError(t, err)
		assert.Equal(t, 9*time.Microsecond, got)

		cg, _ = counterAt(t, 2, strings.Repeat("x 1\n", 1000)+"usage_usec 9\n")
		u2, err := cg.OpenUsage()
		require.NoError(t, err)
		defer u2.Close()
		_, err = u2.Usage()
		assert.ErrorIs(t, err, ErrNoUsage)
		assert.ErrorContains(t, err, "first 1024 bytes")
	})
	t.Run("malformed", func(t *testing.T) {
		for _, c := range []string{"", "\n", "12x\n", "-5\n", "99999999999999999999\n"} {
			cg, _ := counterAt(t, 1, c)
			u, err := cg.OpenUsage()
			require.NoError(t, err)
			_, err = u.Usage()
			assert.ErrorIs(t, err, ErrParse, "%q", c)
			require.NoError(t, u.Close())
		}
	})
	t.Run("missing", func(t *testing.T) {
		dir, root := fixtureMount(t)
		_, err := Cgroup{Hierarchy: Hierarchy{Version: 2, MountPoint: dir, Root: root}, Dir: dir}.OpenUsage()
		assert.ErrorIs(t, err, ErrNoUsage)
		assert.ErrorContains(t, err, "cpu.stat")
	})
	t.Run("closed twice", func(t *testing.T) {
		cg, _ := counterAt(t, 1, "1\n")
		u, err := cg.OpenUsage()
		require.NoError(t, err)
		require.NoError(t, u.Close())
		assert.NoError(t, u.Close())
		_, err = u.Usage()
		assert.Error(t, err, "read after close")
	})
}

// A reading allocates nothing: a sampler at 1 ms would otherwise feed the
// garbage collector, whose cycles wake threads of their own.
func TestUsageFileReadsWithoutAllocating(t *testing.T) {
	for _, version := range []int{1, 2} {
		content := "123456789\n"
		if version == 2 {
			content = "usage_usec 123456\nuser_usec 1\n"
		}
		cg, _ := counterAt(t, version, content)
		u, err := cg.OpenUsage()
		require.NoError(t, err)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := u.Usage(); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "v%d", version)
		require.NoError(t, u.Close())
	}
}

// FuzzUsageUsecOf holds the sampler's parser of cpu.stat to the reference
// one (parseUsageUsec) on anything written in the kernel's alphabet
// (printable ASCII, spaces, tabs, newlines): the same value whenever it
// finds one, and an error wrapping ErrParse or ErrNoUsage otherwise.
func FuzzUsageUsecOf(f *testing.F) {
	seedFromFixtures(f, "", "cpu.stat")
	f.Add([]byte("usage_usec 9223372036854775\n"))
	f.Add([]byte(" usage_usec 5 6\nusage_usec 7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := usageUsecOf(data)
		if err != nil {
			if !errors.Is(err, ErrParse) && !errors.Is(err, ErrNoUsage) {
				t.Fatalf("error for %q wraps neither ErrParse nor ErrNoUsage: %v", data, err)
			}
			return
		}
		for _, c := range data {
			if (c < ' ' || c > '~') && c != '\t' && c != '\n' {
				return
			}
		}
		want, err := parseUsageUsec(data)
		if err != nil || want != got {
			t.Fatalf("%q: %v here, %v (%v) by parseUsageUsec", data, got, want, err)
		}
	})
}
