package host

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Memory is a process's memory as /proc/PID/status counts it.
type Memory struct {
	RSS  int64 // VmRSS: resident now, in bytes
	Peak int64 // VmHWM: the most it has been resident, in bytes
}

// ProcMemory reads process pid's resident and peak memory.
func ProcMemory(pid int) (Memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	return parseMemory(data)
}

// parseMemory reads VmRSS and VmHWM ("VmHWM:	   12345 kB") from a
// /proc/PID/status; both must be there (a zombie has neither).
func parseMemory(data []byte) (Memory, error) {
	var m Memory
	found := 0
	for line := range bytes.Lines(data) {
		var dst *int64
		switch {
		case bytes.HasPrefix(line, []byte("VmRSS:")):
			dst = &m.RSS
		case bytes.HasPrefix(line, []byte("VmHWM:")):
			dst = &m.Peak
		default:
			continue
		}
		f := bytes.Fields(line)
		if len(f) != 3 || string(f[2]) != "kB" {
			return Memory{}, fmt.Errorf("%w: /proc status line %q", ErrParse, bytes.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil || kb < 0 || kb > 1<<40 {
			return Memory{}, fmt.Errorf("%w: /proc status line %q", ErrParse, bytes.TrimSpace(line))
		}
		*dst = kb << 10
		found++
	}
	if found != 2 {
		return Memory{}, fmt.Errorf("%w: no VmRSS and VmHWM (the process has exited)", ErrParse)
	}
	return m, nil
}
