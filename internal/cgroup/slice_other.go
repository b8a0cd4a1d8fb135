//go:build !linux

package cgroup

import (
	"errors"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
)

// ErrPermission says a slice could not be created for lack of rights.
var ErrPermission = errors.New("no permission to create a cgroup")

// ErrLimitsRefused is bandwidth's: the kernel refused the limits written
// into a new slice.
var ErrLimitsRefused = bandwidth.ErrLimitsRefused

var errNotLinux = errors.New("cgroups exist on Linux only")

// SliceSpec says where a slice is created and with which limits.
type SliceSpec struct {
	Parent       string
	CreateParent bool
	Limits       Limits
	Cpuset       *CpusetSpec
}

// Slice is a cgroup created for one benchmark run.
type Slice struct{ Cgroup }

// Skipped is a directory that looks like a slice but that CleanStale left alone.
type Skipped struct{ Dir, Reason string }

func (hier Hierarchy) CreateSlice(SliceSpec) (*Slice, error) { return nil, errNotLinux }
func (hier Hierarchy) RemoveDefaultParent()                  {}
func (s *Slice) AddProc(int) error                           { return errNotLinux }
func (s *Slice) Delete() error                               { return errNotLinux }
func (s *Slice) KillLeft(int) (int, error)                   { return 0, errNotLinux }

// KillIn is KillLeft for a directory.
func KillIn(string, int) (int, error)                                    { return 0, errNotLinux }
func (h Host) KillIn(string, int) (int, error)                           { return 0, errNotLinux }
func (s *Slice) Cpuset() (string, error)                                 { return "", errNotLinux }
func (hier Hierarchy) CleanStale(string) ([]string, []Skipped, error)    { return nil, nil, nil }
func (h Host) Tidy(Hierarchy, string, bool) ([]string, []Skipped, error) { return nil, nil, nil }

// CanCreateSlice is false: there are no cgroups here.
func (hier Hierarchy) CanCreateSlice() (bool, string) { return false, errNotLinux.Error() }
