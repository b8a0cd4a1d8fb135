package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrParse is wrapped by every error about malformed kernel files.
var ErrParse = errors.New("cannot parse")

// maxFileSize bounds how much of a pseudo-file is read: their stat size is
// meaningless (0 or 4096), and none of the files we read comes near this.
const maxFileSize = 1 << 20

// readFile reads a whole pseudo-file through a size limit.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileSize))
}

// newLineScanner scans data line by line with no limit on a line's length
// but data's own: a line longer than bufio's 64 KiB default is for the
// parser to judge, not a bufio.ErrTooLong that escapes without ErrParse.
// (data is a whole pseudo-file, already bounded by maxFileSize.)
func newLineScanner(data []byte) *bufio.Scanner {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	return sc
}

// Mount is one line of /proc/<pid>/mountinfo that matters to us.
type Mount struct {
	Root       string   // the path inside the filesystem that is mounted (cgroup: the mount root)
	MountPoint string   // where it is mounted
	FSType     string   // "cgroup" or "cgroup2" for us
	SuperOpts  []string // super-block options: the v1 controllers ("cpu", "cpuacct", "name=systemd")
}

// parseMountInfo parses /proc/<pid>/mountinfo (proc(5)). Only the fields we
// use are kept.
func parseMountInfo(data []byte) ([]Mount, error) {
	var mounts []Mount
	sc := newLineScanner(data)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			return nil, fmt.Errorf("%w: mountinfo line without separator: %q", ErrParse, line)
		}
		pf := strings.Fields(pre)
		qf := strings.Fields(post)
		if len(pf) < 6 || len(qf) < 2 {
			return nil, fmt.Errorf("%w: mountinfo line with too few fields: %q", ErrParse, line)
		}
		m := Mount{
			Root:       unescapeMountPath(pf[3]),
			MountPoint: unescapeMountPath(pf[4]),
			FSType:     qf[0],
		}
		if len(qf) >= 3 {
			m.SuperOpts = strings.Split(qf[2], ",")
		}
		mounts = append(mounts, m)
	}
	return mounts, sc.Err()
}

// unescapeMountPath undoes the kernel's octal escapes (\040 for a space,
// \011, \012, \134) in mountinfo paths.
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ProcCgroup is one line of /proc/<pid>/cgroup.
type ProcCgroup struct {
	ID          int
	Controllers []string // empty for the v2 line "0::/path"
	Path        string
}

// parseProcCgroup parses /proc/<pid>/cgroup: "hierarchy-ID:controllers:path".
// The path may itself contain colons, hence SplitN.
func parseProcCgroup(data []byte) ([]ProcCgroup, error) {
	var out []ProcCgroup
	sc := newLineScanner(data)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: /proc/self/cgroup line: %q", ErrParse, line)
		}
		id, err := strconv.Atoi(f[0])
		if err != nil || id < 0 { // the kernel numbers hierarchies from 0
			return nil, fmt.Errorf("%w: /proc/self/cgroup hierarchy id: %q", ErrParse, line)
		}
		pc := ProcCgroup{ID: id, Path: f[2]}
		if f[1] != "" {
			pc.Controllers = strings.Split(f[1], ",")
		}
		out = append(out, pc)
	}
	return out, sc.Err()
}

// CPUStat is bandwidth's: the plain counters live there so that the
// reports can name them without importing this package.
type CPUStat = bandwidth.CPUStat

// parseCPUStat parses cpu.stat of either version. v1 reports times in
// nanoseconds (throttled_time, burst_time), v2 in microseconds
// (throttled_usec, burst_usec).
func parseCPUStat(data []byte) (CPUStat, error) {
	var s CPUStat
	sc := newLineScanner(data)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return CPUStat{}, fmt.Errorf("%w: cpu.stat line: %q", ErrParse, sc.Text())
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return CPUStat{}, fmt.Errorf("%w: cpu.stat value: %q", ErrParse, sc.Text())
		}
		// A time no time.Duration can hold is no reading a kernel could make
		// (2^63 ns is 292 years): refused, rather than wrapped negative.
		switch f[0] {
		case "throttled_time", "burst_time":
			if v > math.MaxInt64 {
				return CPUStat{}, fmt.Errorf("%w: cpu.stat value out of range: %q", ErrParse, sc.Text())
			}
		case "throttled_usec", "burst_usec":
			if v > maxMicros {
				return CPUStat{}, fmt.Errorf("%w: cpu.stat value out of range: %q", ErrParse, sc.Text())
			}
		}
		switch f[0] {
		case "nr_periods":
			s.NrPeriods = &v
		case "nr_throttled":
			s.NrThrottled = &v
		case "nr_bursts":
			s.NrBursts = &v
		case "throttled_time":
			s.ThrottledTime = durPtr(time.Duration(v))
		case "throttled_usec":
			s.ThrottledTime = durPtr(time.Duration(v) * time.Microsecond)
		case "burst_time":
			s.BurstTime = durPtr(time.Duration(v))
		case "burst_usec":
			s.BurstTime = durPtr(time.Duration(v) * time.Microsecond)
		}
	}
	return s, sc.Err()
}

// parseUsageUsec finds usage_usec in a v2 cpu.stat: every cgroup has it,
// with or without the cpu controller.
func parseUsageUsec(data []byte) (time.Duration, error) {
	sc := newLineScanner(data)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "usage_usec" {
			v, err := strconv.ParseUint(f[1], 10, 63)
			if err != nil || v > uint64(math.MaxInt64/int64(time.Microsecond)) {
				return 0, fmt.Errorf("%w: cpu.stat value: %q", ErrParse, sc.Text())
			}
			return time.Duration(v) * time.Microsecond, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%w: no usage_usec in cpu.stat", ErrNoUsage)
}

func durPtr(d time.Duration) *time.Duration { return &d }

// Unlimited and Limits are bandwidth's: the plain values live there so that
// the configuration can name them without importing this package.
const Unlimited = bandwidth.Unlimited

// Limits are the CFS bandwidth settings of one cgroup.
type Limits = bandwidth.Limits

// maxMicros is the most microseconds a time.Duration holds (about 292 years).
const maxMicros = math.MaxInt64 / uint64(time.Microsecond)

// parseCPUMax parses v2 cpu.max: "max 100000" or "20000 100000" (µs).
func parseCPUMax(data []byte) (quota, period time.Duration, err error) {
	f := strings.Fields(string(data))
	if len(f) < 1 || len(f) > 2 {
		return 0, 0, fmt.Errorf("%w: cpu.max: %q", ErrParse, data)
	}
	period = 100 * time.Millisecond // the kernel's default when only the quota is given
	if len(f) == 2 {
		p, err := strconv.ParseUint(f[1], 10, 63)
		if err != nil || p == 0 || p > maxMicros {
			return 0, 0, fmt.Errorf("%w: cpu.max period: %q", ErrParse, data)
		}
		period = time.Duration(p) * time.Microsecond
	}
	if f[0] == "max" {
		return Unlimited, period, nil
	}
	q, err := strconv.ParseUint(f[0], 10, 63)
	if err != nil || q > maxMicros {
		return 0, 0, fmt.Errorf("%w: cpu.max quota: %q", ErrParse, data)
	}
	return time.Duration(q) * time.Microsecond, period, nil
}

// parseMicros parses a single integer of microseconds, as in the v1 files
// cpu.cfs_period_us, cpu.cfs_quota_us ("-1" = unlimited) and
// cpu.cfs_burst_us, and v2 cpu.max.burst.
func parseMicros(data []byte) (time.Duration, error) {
	s := strings.TrimSpace(string(data))
	if s == "max" || s == "-1" {
		return Unlimited, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || uint64(v) > maxMicros {
		return 0, fmt.Errorf("%w: microseconds: %q", ErrParse, s)
	}
	return time.Duration(v) * time.Microsecond, nil
}

// procStat is /proc/<pid>/stat (proc(5)) as far as we read it, parsed
// once: the fields after the command name, which may itself hold spaces
// and parentheses, so they start after the last ')'.
type procStat struct {
	data   []byte   // the whole file, quoted in errors
	fields []string // fields[0] is field 3, the state
}

func parseProcStat(data []byte) (procStat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("%w: stat without a command name in parentheses: %.40q", ErrParse, data)
	}
	return procStat{data: data, fields: strings.Fields(string(data[i+1:]))}, nil
}

// pfExiting is the kernel's PF_EXITING task flag (include/linux/sched.h).
const pfExiting = 0x4

// dead says the process is a zombie or dead (state Z or X): exiting, a
// state only the kernel moves on from.
func (s procStat) dead() bool {
	return len(s.fields) > 0 && (s.fields[0] == "Z" || s.fields[0] == "X")
}

// exiting says PF_EXITING is among the flags (field 9).
func (s procStat) exiting() bool {
	if len(s.fields) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(s.fields[6], 10, 64)
	return err == nil && flags&pfExiting != 0
}

// startTime is field 22: the start time in clock ticks since boot.
func (s procStat) startTime() (uint64, error) {
	// fields[0] is field 3; field 22 is fields[19].
	if len(s.fields) < 20 {
		return 0, fmt.Errorf("%w: stat too short: %.40q", ErrParse, s.data)
	}
	st, err := strconv.ParseUint(s.fields[19], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: stat start time: %q", ErrParse, s.fields[19])
	}
	return st, nil
}

// parseProcStartTime returns field 22 of /proc/<pid>/stat.
func parseProcStartTime(data []byte) (uint64, error) {
	s, err := parseProcStat(data)
	if err != nil {
		return 0, err
	}
	return s.startTime()
}
