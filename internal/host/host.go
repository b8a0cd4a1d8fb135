package host

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrParse is wrapped by every error about a malformed /proc/stat.
var ErrParse = errors.New("cannot parse")

// userHZ is the unit of /proc/stat's times (USER_HZ, sysconf(_SC_CLK_TCK)):
// 100 on every architecture Linux runs Go on, which is why procfs
// libraries hard-code it too (reading it needs cgo or the auxiliary vector).
const userHZ = 100

// Tick is the resolution of /proc/stat's times.
const Tick = time.Second / userHZ

// CPUTimes is what /proc/stat's aggregate "cpu" line says, summed over all
// CPUs since boot.
type CPUTimes struct {
	CPUs int // online CPUs: the "cpuN" lines
	// Idle is idle plus iowait: time a CPU had nothing to run. With a
	// tickless kernel it is measured at every idle entry and exit, not
	// sampled at ticks as the busy fields are; which makes it the better
	// measure of how busy the machine was.
	Idle time.Duration
}

// ParseStat parses /proc/stat (proc(5)).
func ParseStat(data []byte) (CPUTimes, error) {
	var t CPUTimes
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20) // the "intr" line is long
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			if _, err := strconv.Atoi(f[0][3:]); err == nil {
				t.CPUs++
			}
			continue
		}
		// cpu user nice system idle iowait irq softirq steal guest guest_nice
		if len(f) < 6 {
			return CPUTimes{}, fmt.Errorf("%w: /proc/stat cpu line with too few fields: %q", ErrParse, sc.Text())
		}
		for _, v := range f[4:6] {
			n, err := strconv.ParseUint(v, 10, 63)
			// Ticks no time.Duration holds (2^63 ns is 292 years) are no
			// reading a kernel makes: refused, rather than wrapped negative.
			if err != nil || n > uint64(math.MaxInt64/Tick) || time.Duration(n)*Tick > math.MaxInt64-t.Idle {
				return CPUTimes{}, fmt.Errorf("%w: /proc/stat cpu line: %q", ErrParse, sc.Text())
			}
			t.Idle += time.Duration(n) * Tick
		}
		found = true
	}
	if err := sc.Err(); err != nil {
		return CPUTimes{}, fmt.Errorf("%w: /proc/stat: %v", ErrParse, err)
	}
	if !found || t.CPUs == 0 {
		return CPUTimes{}, fmt.Errorf("%w: /proc/stat without a cpu line and cpuN lines", ErrParse)
	}
	return t, nil
}

// ReadStat reads root/proc/stat: root is "/" in production, a fixture tree
// in tests.
func ReadStat(root string) (CPUTimes, error) {
	f, err := os.Open(filepath.Join(root, "proc/stat"))
	if err != nil {
		return CPUTimes{}, err
	}
	defer f.Close()
	// A pseudo-file: its stat size means nothing, so read through a limit.
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return CPUTimes{}, err
	}
	return ParseStat(data)
}

// Busy is the CPU time the machine's CPUs spent running something, summed
// over all of them, between two readings taken wall apart: what was not
// idle. false when the readings cannot be compared (the number of CPUs
// changed, a counter went backwards).
func Busy(before, after CPUTimes, wall time.Duration) (time.Duration, bool) {
	if before.CPUs != after.CPUs || before.CPUs == 0 || after.Idle < before.Idle || wall <= 0 {
		return 0, false
	}
	// Both readings round to a Tick, so a nearly idle machine may come out
	// a little below zero.
	return max(0, time.Duration(after.CPUs)*wall-(after.Idle-before.Idle)), true
}
