package cgroup

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The fuzz targets below feed the parsers of kernel files arbitrary bytes.
// Whatever the bytes, a parser must not panic, must fail only with an error
// that wraps ErrParse (the callers tell a malformed file from a missing one
// by it), and must never hand back a value the kernel could not have meant:
// a negative duration, a zero period. Seeds are every matching file of the
// fixture trees under testdata/, so the fuzzer starts from real kernel output.

// seedFromFixtures adds the bytes of every file under testdata/ whose base
// name is one of names (and whose path contains under, when it is not empty).
func seedFromFixtures(f *testing.F, under string, names ...string) {
	f.Helper()
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// testdata/fuzz holds the fuzzer's own corpus, which go test adds itself.
		if d.IsDir() && path == filepath.Join("testdata", "fuzz") {
			return filepath.SkipDir
		}
		if d.IsDir() || !slices.Contains(names, d.Name()) || !strings.Contains(path, under) {
			return nil
		}
		data, err := readFile(path)
		if err != nil {
			return err
		}
		f.Add(data)
		n++
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	if n == 0 {
		f.Fatalf("no fixture named %v under testdata/ to seed from", names)
	}
}

// checkParseErr fails unless err wraps ErrParse.
func checkParseErr(t *testing.T, err error, data []byte) {
	t.Helper()
	if !errors.Is(err, ErrParse) {
		t.Fatalf("error for %q does not wrap ErrParse: %v", data, err)
	}
}

func FuzzParseMountInfo(f *testing.F) {
	seedFromFixtures(f, "", "mountinfo")
	f.Fuzz(func(t *testing.T, data []byte) {
		mounts, err := parseMountInfo(data)
		if err != nil {
			checkParseErr(t, err, data)
			if mounts != nil {
				t.Fatalf("mounts %v returned with an error", mounts)
			}
			return
		}
		if len(mounts) > strings.Count(string(data), "\n")+1 {
			t.Fatalf("%d mounts from %d lines", len(mounts), strings.Count(string(data), "\n")+1)
		}
		for _, m := range mounts {
			if m.FSType == "" || m.MountPoint == "" || m.Root == "" {
				t.Fatalf("mount with an empty field from %q: %+v", data, m)
			}
		}
	})
}

func FuzzParseProcCgroup(f *testing.F) {
	seedFromFixtures(f, "proc", "cgroup")
	f.Add([]byte("-1:cpu:/\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := parseProcCgroup(data)
		if err != nil {
			checkParseErr(t, err, data)
			if lines != nil {
				t.Fatalf("lines %v returned with an error", lines)
			}
			return
		}
		for _, l := range lines {
			// The kernel numbers hierarchies from 0 (the v2 line) upwards.
			if l.ID < 0 {
				t.Fatalf("negative hierarchy id from %q: %+v", data, l)
			}
		}
	})
}

func FuzzParseCPUStat(f *testing.F) {
	seedFromFixtures(f, "", "cpu.stat")
	// The largest numbers each unit can hold: byte mutation rarely reaches
	// twenty-digit numbers on its own.
	f.Add([]byte("throttled_time 9223372036854775807\nburst_usec 9223372036854775\n"))
	f.Add([]byte("throttled_usec 18446744073709551615\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseCPUStat(data)
		if err != nil {
			checkParseErr(t, err, data)
			if s != (CPUStat{}) {
				t.Fatalf("partial result %+v returned with an error", s)
			}
			return
		}
		// Each time is the file's number in its unit (the last line of a key
		// wins), not a number wrapped around by the conversion.
		want := map[string]time.Duration{}
		for _, line := range strings.Split(string(data), "\n") {
			kv := strings.Fields(line)
			unit, ok := map[string]time.Duration{"throttled_time": 1, "burst_time": 1, "throttled_usec": time.Microsecond, "burst_usec": time.Microsecond}[statKey(kv)]
			if !ok {
				continue
			}
			v, _ := strconv.ParseUint(kv[1], 10, 64)
			if v > uint64(math.MaxInt64/unit) {
				t.Fatalf("%s %d cannot be a time.Duration, yet %q parsed", kv[0], v, data)
			}
			want[strings.TrimSuffix(strings.TrimSuffix(kv[0], "_time"), "_usec")] = time.Duration(v) * unit
		}
		for name, d := range map[string]*time.Duration{"throttled": s.ThrottledTime, "burst": s.BurstTime} {
			w, ok := want[name]
			if (d != nil) != ok || (ok && *d != w) {
				t.Fatalf("%s time %v from %q, want %v", name, d, data, w)
			}
		}
	})
}

func FuzzParseCPUMax(f *testing.F) {
	seedFromFixtures(f, "", "cpu.max")
	f.Add([]byte("9223372036854775 1000000\n"))
	f.Add([]byte("max 9223372036854775807\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		quota, period, err := parseCPUMax(data)
		if err != nil {
			checkParseErr(t, err, data)
			if quota != 0 || period != 0 {
				t.Fatalf("quota %v, period %v returned with an error", quota, period)
			}
			return
		}
		if period <= 0 || period%time.Microsecond != 0 {
			t.Fatalf("period %v from %q: want whole microseconds above 0", period, data)
		}
		if quota != Unlimited && (quota < 0 || quota%time.Microsecond != 0) {
			t.Fatalf("quota %v from %q: want Unlimited or whole microseconds ≥ 0", quota, data)
		}
		// And they are the file's numbers, not numbers wrapped around.
		f := strings.Fields(string(data))
		if q, err := strconv.ParseUint(f[0], 10, 64); err == nil && time.Duration(q)*time.Microsecond != quota {
			t.Fatalf("quota %v from %q", quota, data)
		}
		if len(f) == 2 {
			if p, _ := strconv.ParseUint(f[1], 10, 64); time.Duration(p)*time.Microsecond != period || uint64(period/time.Microsecond) != p {
				t.Fatalf("period %v from %q", period, data)
			}
		}
	})
}

func FuzzParseMicros(f *testing.F) {
	seedFromFixtures(f, "", "cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.cfs_burst_us", "cpu.max.burst")
	f.Add([]byte("9223372036854775\n"))
	f.Add([]byte("9223372036854775807\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseMicros(data)
		if err != nil {
			checkParseErr(t, err, data)
			if d != 0 {
				t.Fatalf("%v returned with an error", d)
			}
			return
		}
		if d == Unlimited {
			return
		}
		if v, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); d < 0 || int64(d/time.Microsecond) != v || d%time.Microsecond != 0 {
			t.Fatalf("%v from %q: want whole microseconds ≥ 0, the file's number", d, data)
		}
	})
}

func FuzzParseProcStartTime(f *testing.F) {
	// This machine's own /proc/self/stat, and one whose command name holds
	// spaces and parentheses (field 22 is 48889 in both).
	f.Add([]byte("17338 (cat) R 17333 17333 14356 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 48889 3133440 411 18446744073709551615 94539518414848 94539518434729 140725075960704 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94539518450736 94539518452352 94539809079296 140725075966647 140725075966667 140725075966667 140725075967979 0\n"))
	f.Add([]byte("42 (a) b (c)) S 1 42 42 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 48889 3133440 411\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseProcStartTime(data)
		if err != nil {
			checkParseErr(t, err, data)
		}
	})
}

// statKey is the key of a cpu.stat line of two fields, or "".
func statKey(f []string) string {
	if len(f) == 2 {
		return f[0]
	}
	return ""
}

func FuzzParseUsageUsec(f *testing.F) {
	seedFromFixtures(f, "", "cpu.stat")
	f.Add([]byte("usage_usec 9223372036854775\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseUsageUsec(data)
		if err != nil {
			if !errors.Is(err, ErrParse) && !errors.Is(err, ErrNoUsage) {
				t.Fatalf("error for %q wraps neither ErrParse nor ErrNoUsage: %v", data, err)
			}
			if d != 0 {
				t.Fatalf("%v returned with an error", d)
			}
			return
		}
		if d < 0 || d%time.Microsecond != 0 {
			t.Fatalf("%v from %q: want whole microseconds ≥ 0", d, data)
		}
	})
}
