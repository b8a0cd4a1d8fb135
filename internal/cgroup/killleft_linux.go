//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// KillLeft kills what is left in the slice but except (its workload
// child, still alive; 0 for none): the processes a command it ran left
// behind (a daemon that left the command's process group), which would
// keep Delete waiting. Only a process found in this slice, which
// throttlebench made and put its own child in, is killed; each is held by
// a pidfd and found in the slice again before the signal, so that a
// reused PID is never hit. It returns how many it killed.
func (s *Slice) KillLeft(except int) (int, error) { return KillIn(s.Dir, except) }

// KillIn kills every process in the cgroup at dir but except (the
// caller itself, for the workload child in its own slice; 0 for none) and
// waits until they are gone: KillLeft's way, for the workload child of a
// command whose run was stopped. dir is a slice of ours.
func KillIn(dir string, except int) (int, error) {
	killed := 0
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids, err := procs(dir)
		pids = slices.DeleteFunc(pids, func(p string) bool { return p == strconv.Itoa(except) })
		if err != nil || len(pids) == 0 {
			return killed, err
		}
		if time.Now().After(deadline) {
			return killed, fmt.Errorf("processes still in %s after SIGKILL: %v", dir, pids)
		}
		for _, p := range pids {
			pid, err := strconv.Atoi(p)
			if err != nil {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue // gone already
			}
			if killedAlready(p) {
				// Killed already (the command's process group, a moment
				// before) and on its way out: waited for, not counted as
				// left (under TCG such a one was still listed here).
				unix.Close(fd)
				continue
			}
			if again, _ := procs(dir); slices.Contains(again, p) {
				if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err == nil {
					killed++
				} else if !errors.Is(err, unix.ESRCH) {
					unix.Close(fd)
					return killed, fmt.Errorf("kill %d in %s: %w", pid, dir, err)
				}
			}
			unix.Close(fd)
		}
		time.Sleep(10 * time.Millisecond) // the kernel takes a killed process out of cgroup.procs once it is reaped
	}
}

// killedAlready says the process pid is on its way out already: exiting
// (PF_EXITING in /proc/<pid>/stat's flags) or with a SIGKILL pending
// (SigPnd or ShdPnd in /proc/<pid>/status); gone counts too.
func killedAlready(pid string) bool {
	stat, err1 := os.ReadFile("/proc/" + pid + "/stat")
	status, err2 := os.ReadFile("/proc/" + pid + "/status")
	if err1 != nil || err2 != nil {
		return true
	}
	return dyingFrom(string(stat), string(status))
}

// pfExiting is the kernel's PF_EXITING task flag (include/linux/sched.h).
const pfExiting = 0x4

// dyingFrom is killedAlready on the two files' text.
func dyingFrom(stat, status string) bool {
	// Fields after the command's closing parenthesis: state is the first,
	// flags the seventh (proc(5): fields 3 and 9).
	if i := strings.LastIndexByte(stat, ')'); i >= 0 {
		f := strings.Fields(stat[i+1:])
		if len(f) > 6 {
			if f[0] == "Z" || f[0] == "X" {
				return true
			}
			if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil && flags&pfExiting != 0 {
				return true
			}
		}
	}
	for _, line := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "SigPnd" && k != "ShdPnd") {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && mask&(1<<(unix.SIGKILL-1)) != 0 {
			return true
		}
	}
	return false
}
