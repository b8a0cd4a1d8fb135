package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SchedStat is one thread's scheduler counters since it started
// (/proc/TID/schedstat): the time it ran, and its run delay, the time it
// was runnable and waited on a run queue. On every kernel we measured
// (6.1, 6.18) the run delay also holds the time a CFS quota held it
// throttled, so a window's wait for others is the run delay less that.
type SchedStat struct {
	OnCPU, RunDelay time.Duration
}

// ReadSchedStat reads thread tid's SchedStat below root ("" is "/").
func ReadSchedStat(root string, tid int) (SchedStat, error) {
	data, err := os.ReadFile(filepath.Join(root, "/proc", strconv.Itoa(tid), "schedstat"))
	if err != nil {
		return SchedStat{}, err
	}
	return ParseSchedStat(data)
}

// ParseSchedStat reads schedstat's line: run time (ns), run delay (ns),
// time slices.
func ParseSchedStat(data []byte) (SchedStat, error) {
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return SchedStat{}, fmt.Errorf("schedstat %q: want run time and run delay", data)
	}
	var ns [2]int64
	for i := range ns {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || v < 0 {
			return SchedStat{}, fmt.Errorf("schedstat %q: field %d is not a count of nanoseconds", data, i+1)
		}
		ns[i] = v
	}
	return SchedStat{OnCPU: time.Duration(ns[0]), RunDelay: time.Duration(ns[1])}, nil
}
