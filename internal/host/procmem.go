package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ProcStatus is one process's /proc/PID/status, its "Name:\tvalue" lines
// by name, values trimmed. It is the one reader of that file: the memory of
// latency --instances' instances (Memory) and, in internal/cgroup, the
// signals pending on a process left in a slice (SignalPending).
type ProcStatus map[string]string

// ReadProcStatus reads process pid's status below root ("" is "/"): "/"
// in production, a fixture tree in tests.
func ReadProcStatus(root string, pid int) (ProcStatus, error) {
	data, err := os.ReadFile(filepath.Join(root, "/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return nil, err
	}
	return ParseProcStatus(data), nil
}

// ParseProcStatus reads status's lines; one without a colon is skipped.
func ParseProcStatus(data []byte) ProcStatus {
	s := ProcStatus{}
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			s[k] = strings.TrimSpace(v)
		}
	}
	return s
}

// SignalPending says whether sig is pending on the process: on its thread
// (SigPnd) or on its whole thread group (ShdPnd).
func (s ProcStatus) SignalPending(sig syscall.Signal) bool {
	for _, k := range []string{"SigPnd", "ShdPnd"} {
		if mask, err := strconv.ParseUint(s[k], 16, 64); err == nil && mask&(1<<(sig-1)) != 0 {
			return true
		}
	}
	return false
}

// Memory is a process's memory as /proc/PID/status counts it.
type Memory struct {
	RSS  int64 // VmRSS: resident now, in bytes
	Peak int64 // VmHWM: the most it has been resident, in bytes
}

// ProcMemory reads process pid's resident and peak memory below root
// ("" is "/").
func ProcMemory(root string, pid int) (Memory, error) {
	s, err := ReadProcStatus(root, pid)
	if err != nil {
		return Memory{}, err
	}
	return s.Memory()
}

// Memory is VmRSS and VmHWM ("VmHWM:	   12345 kB"); both must be there
// (a zombie has neither).
func (s ProcStatus) Memory() (Memory, error) {
	var m Memory
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"VmRSS", &m.RSS}, {"VmHWM", &m.Peak}} {
		v, ok := s[f.name]
		if !ok {
			return Memory{}, fmt.Errorf("%w: no VmRSS and VmHWM (the process has exited)", ErrParse)
		}
		n, unit, _ := strings.Cut(v, " ")
		kb, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		if strings.TrimSpace(unit) != "kB" || err != nil || kb < 0 || kb > 1<<40 {
			return Memory{}, fmt.Errorf("%w: /proc status line %q", ErrParse, f.name+":\t"+v)
		}
		*f.dst = kb << 10
	}
	return m, nil
}
