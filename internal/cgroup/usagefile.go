package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// UsageFile is a cgroup's CPU usage counter held open, for a sampler that
// reads it many times: each reading is one positioned read from offset 0
// into a buffer of its own, parsed in place, with no allocation. Reading
// through Cgroup.Usage instead opens, reads and closes the file each time
// (and on Linux registers it with the runtime's poller and removes it
// again): several system calls and an allocation per reading. A pseudo-file
// read from offset 0 is rendered anew, so the value is always current.
//
// It serves only sample's sampler (every 100 ms by default, for as long as
// the command runs), whose readings must wake no other thread and feed no
// garbage collector, or it would measure itself: a run's statistics are
// read twice per run, by containerd/cgroups (Slice.Usage) or by
// Cgroup.Usage, and need none of this (cmd/throttlebench's
// TestOneReaderPerCounter holds the rule).
//
// A UsageFile is for one goroutine at a time.
type UsageFile struct {
	dir, name string
	v         version
	f         counterFile
	buf       [usageBufSize]byte
}

// usageBufSize holds all of cpu.stat (about 250 bytes on 6.x kernels) with
// room to grow; usage_usec, its first line, is all that is read of it.
const usageBufSize = 1024

// OpenUsage opens c's usage counter: cpuacct.usage on v1, cpu.stat's
// usage_usec on v2. A missing file is ErrNoUsage, as for Usage.
func (c Cgroup) OpenUsage() (*UsageFile, error) {
	u := &UsageFile{dir: c.Dir, v: c.version()}
	u.name = u.v.usageFile()
	f, err := openCounter(c.cgroupfs(), filepath.Join(c.Dir, u.name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: no %s in %s", ErrNoUsage, u.name, c.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the usage counter: %w", err)
	}
	u.f = f
	return u, nil
}

// Usage reads the counter: the cgroup's CPU time since it was made. Once
// the cgroup is removed it is ErrNoUsage.
func (u *UsageFile) Usage() (time.Duration, error) {
	n, err := u.f.readAt0(u.buf[:])
	if err != nil {
		if errors.Is(err, errCounterGone) {
			return 0, fmt.Errorf("%w: %s in %s: the cgroup was removed", ErrNoUsage, u.name, u.dir)
		}
		return 0, fmt.Errorf("reading %s in %s: %w", u.name, u.dir, err)
	}
	return u.v.usageInPlace(u.buf[:n])
}

// Close releases the file; closing it again does nothing.
func (u *UsageFile) Close() error { return u.f.close() }

// errCounterGone is what reading an open counter gives once its cgroup has
// been removed (the kernel answers ENODEV).
var errCounterGone = errors.New("counter file removed")

// usageUsecOf finds cpu.stat's usage_usec line, as parseUsageUsec does,
// without allocating on the way to a value.
func usageUsecOf(data []byte) (time.Duration, error) {
	const key = "usage_usec"
	for rest := data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimLeft(line, " \t")
		if !bytes.HasPrefix(line, []byte(key)) || len(line) == len(key) || (line[len(key)] != ' ' && line[len(key)] != '\t') {
			continue
		}
		v, ok := parseDecimal(bytes.Trim(line[len(key):], " \t"), math.MaxInt64/int64(time.Microsecond))
		if !ok {
			return 0, fmt.Errorf("%w: cpu.stat value: %q", ErrParse, line)
		}
		return time.Duration(v) * time.Microsecond, nil
	}
	if len(data) == usageBufSize {
		return 0, fmt.Errorf("%w: no usage_usec in the first %d bytes of cpu.stat", ErrNoUsage, usageBufSize)
	}
	return 0, fmt.Errorf("%w: no usage_usec in cpu.stat", ErrNoUsage)
}

// parseDecimal parses a non-empty run of ASCII digits no larger than max.
func parseDecimal(b []byte, max int64) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if v > (max-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}
