//go:build !linux

package cgroup

import (
	"errors"
	"io"
	"os"
)

// counterFile is an open counter; only Linux has cgroups, so this serves
// the tests' counter files.
type counterFile struct{ f *os.File }

func openCounter(_ cgroupfs, path string) (counterFile, error) {
	f, err := os.Open(path)
	return counterFile{f: f}, err
}

func (f *counterFile) readAt0(b []byte) (int, error) {
	n, err := f.f.ReadAt(b, 0)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

func (f *counterFile) close() error {
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	f.f = nil
	return err
}
