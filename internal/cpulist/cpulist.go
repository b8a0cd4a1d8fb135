// Package cpulist is the kernel's CPU list format ("0-3,8,10-11", as in
// /sys/devices/system/cpu/online and cpuset.cpus): Parse reads it, Format
// writes it. A leaf, so that cgroup, topology, config and the report share
// it without importing one another.
package cpulist

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrParse is wrapped by every error about a malformed list.
var ErrParse = errors.New("cannot parse")

// MaxCPU bounds the CPU ids a list may name: the kernel's NR_CPUS is at
// most 8192 on every configuration shipped, and a bound keeps "0-999999999"
// from allocating a billion ints.
const MaxCPU = 8191

// Parse parses the kernel's CPU list format ("0-3,8,10-11", as in
// /sys/devices/system/cpu/online and cpuset.cpus): ascending, without
// duplicates. An empty list (an empty file) is valid and empty.
func Parse(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpuID(lo, s)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = cpuID(hi, s); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("%w CPU list %q: range %s runs backwards", ErrParse, s, part)
			}
		}
		for id := a; id <= b; id++ {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func cpuID(s, list string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%w CPU list %q: %q is not a CPU number", ErrParse, list, s)
	}
	if v > MaxCPU {
		return 0, fmt.Errorf("%w CPU list %q: CPU %d is above %d", ErrParse, list, v, MaxCPU)
	}
	return v, nil
}

// Format writes ids in the kernel's list format, runs as ranges:
// [0 1 2 3 8] → "0-3,8". ids must be ascending without duplicates.
func Format(ids []int) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}
