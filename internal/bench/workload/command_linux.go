//go:build linux

package workload

import (
	"os"
	"syscall"
)

// procAttr puts the command in a process group of its own (its tree is
// killed as one) and kills it when the thread that started it dies (the
// workload child killed: nothing waits for its command).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group pgid: the command and whatever it
// left in its group. An empty group (ESRCH) is the usual case.
func killGroup(pgid int) error {
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

func fillRusage(p *Process, ps *os.ProcessState) {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		p.FaultsMinor, p.FaultsMajor = uint64(ru.Minflt), uint64(ru.Majflt)
		p.CtxVoluntary, p.CtxInvoluntary = uint64(ru.Nvcsw), uint64(ru.Nivcsw)
	}
}
