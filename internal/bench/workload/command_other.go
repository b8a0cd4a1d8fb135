//go:build !linux

package workload

import "errors"

var errNotLinux = errors.New("running a command is supported on Linux only")

func spawn(string, []string, []string, [3]uintptr) (int, error) { return 0, errNotLinux }

func reap(int) (exit, error) { return exit{}, errNotLinux }

func killGroup(int) error { return nil }
