//go:build !linux

package workload

import (
	"os"
	"syscall"
)

func procAttr() *syscall.SysProcAttr { return nil }

func killGroup(int) error { return nil }

func fillRusage(*Process, *os.ProcessState) {}
