//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/host"
)

// KillLeft kills what is left in the slice but except (its workload
// child, still alive; 0 for none): the processes a command it ran left
// behind (a daemon that left the command's process group), which would
// keep Delete waiting. Only a process found in this slice, which
// throttlebench made and put its own child in, is killed; each is held by
// a pidfd and found in the slice again before the signal, so that a
// reused PID is never hit. It returns how many it killed.
func (s *Slice) KillLeft(except int) (int, error) {
	return Host{Root: s.Root}.killIn(s.cgroupfs(), s.Dir, except)
}

// KillIn is Host.KillIn on this machine's own /proc.
func KillIn(dir string, except int) (int, error) { return Host{Root: "/"}.KillIn(dir, except) }

// KillIn kills every process in the cgroup at dir but except (the
// caller itself, for the workload child in its own slice; 0 for none) and
// waits until they are gone: KillLeft's way, for the workload child of a
// command whose run was stopped. dir is a slice of ours, read beneath the
// mount point that the host's mount table says holds it.
func (h Host) KillIn(dir string, except int) (int, error) {
	fs, err := h.cgroupfsAt(dir)
	if err != nil {
		return 0, err
	}
	return h.killIn(fs, dir, except)
}

// killIn is KillIn on dir below fs's mount point.
func (h Host) killIn(fs cgroupfs, dir string, except int) (int, error) {
	killed := 0
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids, err := procs(fs, dir)
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
			if killedAlready(h.Root, pid) {
				// Killed already (the command's process group, a moment
				// before) and on its way out: waited for, not counted as
				// left (under TCG such a one was still listed here).
				unix.Close(fd)
				continue
			}
			if again, _ := procs(fs, dir); slices.Contains(again, p) {
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
// (PF_EXITING in root/proc/<pid>/stat's flags) or with a SIGKILL pending
// (in its status, read by host's one reader of it); gone counts too.
func killedAlready(root string, pid int) bool {
	stat, err1 := readFile(filepath.Join(root, "/proc", strconv.Itoa(pid), "stat"))
	status, err2 := host.ReadProcStatus(root, pid)
	if err1 != nil || err2 != nil {
		return true
	}
	return dyingFrom(string(stat), status)
}

// dyingFrom is killedAlready on the stat file's text and the status.
func dyingFrom(stat string, status host.ProcStatus) bool {
	if st, err := parseProcStat([]byte(stat)); err == nil && (st.dead() || st.exiting()) {
		return true
	}
	return status.SignalPending(unix.SIGKILL)
}
