//go:build !linux

package cgroup

import "time"

// Pressure is a cgroup's CPU pressure totals; Linux only.
type Pressure struct {
	Some, Full time.Duration
	FullOK     bool
}

// Threads: none off Linux.
func (c Cgroup) Threads() ([]int, error) { return nil, errNotLinux }

// Pressure: none off Linux.
func (c Cgroup) Pressure() (Pressure, bool, error) { return Pressure{}, false, nil }

func (v1) threads(Cgroup) ([]int, error)           { return nil, errNotLinux }
func (v2) threads(Cgroup) ([]int, error)           { return nil, errNotLinux }
func (v1) pressure(Cgroup) (Pressure, bool, error) { return Pressure{}, false, nil }
func (v2) pressure(Cgroup) (Pressure, bool, error) { return Pressure{}, false, nil }
