//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// KillLeft kills what is left in the slice after its workload child has
// been ended: the processes a command it ran left behind (a daemon that
// left the command's process group), which would keep Delete waiting.
// Only a process found in this slice, which throttlebench made and put
// its own child in, is killed; each is held by a pidfd and found in the
// slice again before the signal, so that a reused PID is never hit. It
// returns how many it killed.
func (s *Slice) KillLeft() (int, error) { return KillIn(s.Dir, 0) }

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
