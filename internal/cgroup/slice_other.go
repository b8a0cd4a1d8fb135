//go:build !linux

package cgroup

import "errors"

// ErrPermission says a slice could not be created for lack of rights.
var ErrPermission = errors.New("no permission to create a cgroup")

var errNotLinux = errors.New("cgroups exist on Linux only")

// ErrParentOutside says a --parent is not below the cpu hierarchy's mount.
var ErrParentOutside = errors.New("not below the cpu hierarchy mounted at")

// SliceSpec says where a slice is created and with which limits.
type SliceSpec struct {
	Parent string
	Limits Limits
}

// Slice is a cgroup created for one benchmark run.
type Slice struct{ Cgroup }

func (hier Hierarchy) DefaultParent() string                 { return "" }
func (hier Hierarchy) ParentDir(p string) (string, error)    { return p, errNotLinux }
func (hier Hierarchy) CreateSlice(SliceSpec) (*Slice, error) { return nil, errNotLinux }
func (s *Slice) AddProc(int) error                           { return errNotLinux }
func (s *Slice) Delete() error                               { return errNotLinux }
func CleanStale(string) ([]string, error)                    { return nil, nil }
