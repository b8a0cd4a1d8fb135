//go:build !linux

package cgroup

import "context"

// DriverFacts: no systemd slices off Linux.
func (h Host) DriverFacts(context.Context) DriverFacts { return DriverFacts{} }

// NewDriver: cgroupfs alone off Linux.
func (h Host) NewDriver(string) Driver { return cgroupfsDriver{} }

// CleanScopes: no systemd scopes off Linux.
func (h Host) CleanScopes(Hierarchy) ([]string, []string, []Skipped, error) {
	return nil, nil, nil, nil
}

// ScopeSliceDir: throttlebench.slice at the top off Linux (never used).
func ScopeSliceDir(hier Hierarchy) string { return hier.MountPoint + "/" + ScopeSlice }
