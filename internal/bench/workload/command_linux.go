//go:build linux

package workload

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// spawn forks and execs path with argv and env, fds as its stdin, stdout
// and stderr, in a process group of its own, with SIGKILL when the thread
// that started it dies.
func spawn(path string, argv, env []string, fds [3]uintptr) (int, error) {
	return syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: fds[:],
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}})
}

// reap waits for pid and says how it ended, with its resource usage (its
// reaped descendants' included).
func reap(pid int) (exit, error) {
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err := syscall.Wait4(pid, &ws, 0, &ru)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return exit{}, err
		}
		break
	}
	e := exit{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		minflt: uint64(ru.Minflt), majflt: uint64(ru.Majflt), nvcsw: uint64(ru.Nvcsw), nivcsw: uint64(ru.Nivcsw)}
	switch {
	case ws.Exited() && ws.ExitStatus() != 0:
		e.failure = fmt.Sprintf("exited with status %d", ws.ExitStatus())
	case ws.Signaled():
		e.failure = "ended by signal: " + ws.Signal().String()
	}
	return e, nil
}

// killGroup kills the process group pgid: the command and whatever it
// left in its group. An empty group (ESRCH) is the usual case.
func killGroup(pgid int) error {
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
