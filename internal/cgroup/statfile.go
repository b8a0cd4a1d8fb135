package cgroup

import (
	"fmt"
	"path/filepath"
)

// StatFile is a cgroup's cpu.stat held open, read with one pread each
// time into its own buffer: what a loop reads around every run of a
// command (the throttling counters per iteration) costs two system calls.
// It parses with Cgroup.Stat's parser, the one reader of cpu.stat's
// counters (containerd/cgroups cannot tell a missing one from 0).
type StatFile struct {
	path string
	f    counterFile
	buf  [usageBufSize]byte
}

// OpenStat opens cpu.stat in the cgroup directory dir (the cpu
// hierarchy's), beneath the mount point that this machine's mount table
// says holds it: dir is all a workload's child is told.
func OpenStat(dir string) (*StatFile, error) {
	path := filepath.Join(dir, "cpu.stat")
	fs, err := Host{Root: "/"}.cgroupfsAt(dir)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	f, err := openCounter(fs, path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return &StatFile{path: path, f: f}, nil
}

// Read reads the counters now.
func (s *StatFile) Read() (CPUStat, error) {
	n, err := s.f.readAt0(s.buf[:])
	if err != nil {
		return CPUStat{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	return parseCPUStat(s.buf[:n])
}

// Close releases the file; closing it again does nothing.
func (s *StatFile) Close() error { return s.f.close() }
