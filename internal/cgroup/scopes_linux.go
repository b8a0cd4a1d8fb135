//go:build linux

package cgroup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sddbus "github.com/coreos/go-systemd/v22/dbus"
	godbus "github.com/godbus/dbus/v5"
)

// scopeBase is the directory of throttlebench.slice: at the hierarchy's
// top as root, under the user's own manager (user@<uid>.service) otherwise.
func scopeBase(hier Hierarchy, user bool) string {
	if user {
		uid := os.Getuid()
		return filepath.Join(hier.MountPoint, fmt.Sprintf("user.slice/user-%d.slice/user@%d.service", uid, uid), ScopeSlice)
	}
	return filepath.Join(hier.MountPoint, ScopeSlice)
}

// ScopeSliceDir is the directory of this user's throttlebench.slice, where
// cleanup looks for scopes.
func ScopeSliceDir(hier Hierarchy) string { return scopeBase(hier, os.Geteuid() != 0) }

// CleanScopes is `cleanup` for the systemd driver: under the hierarchy's
// throttlebench.slice (the user manager's, for a user who is not root),
// the scopes whose owner no longer lives (judged as a
// slice's owner is) lose their empty slices and their empty leaf self, and
// are then stopped over the manager's bus. It never kills anything: a scope
// in which a process still lives (in a slice, the leaf or the scope
// itself) is left running and listed, and systemd stops it by itself once
// that process is gone. It returns the directories removed, the units
// stopped and what it left.
func (h Host) CleanScopes(hier Hierarchy) (removed, stopped []string, skipped []Skipped, err error) {
	var conn *sddbus.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	user := os.Geteuid() != 0
	return cleanScopes(hier, scopeBase(hier, user), func(unit string) error {
		if conn == nil {
			// Not a context with a deadline: godbus closes a connection
			// when the context it was made with ends.
			c, err := connect(context.Background(), user)
			if err != nil {
				return fmt.Errorf("systemd: connect to the bus: %w", err)
			}
			conn = c
		}
		return stopScope(conn, unit)
	})
}

// stopScope stops unit and waits for it; a unit systemd has collected
// already (it stops an empty scope by itself) is no error.
func stopScope(conn *sddbus.Conn, unit string) error {
	ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
	defer cancel()
	done := make(chan string, 1)
	var dbe godbus.Error
	if _, err := conn.StopUnitContext(ctx, unit, "replace", done); errors.As(err, &dbe) && dbe.Name == "org.freedesktop.systemd1.NoSuchUnit" {
		return nil
	} else if err != nil {
		return fmt.Errorf("systemd: stop %s: %w", unit, err)
	}
	select {
	case r := <-done:
		if r != "done" {
			return fmt.Errorf("systemd: stop %s: %s", unit, r)
		}
	case <-ctx.Done():
		return fmt.Errorf("systemd: stop %s: %w", unit, ctx.Err())
	}
	return nil
}

// cleanScopes is CleanScopes with the bus behind stop, so that the rule
// can be tried on a plain directory tree; parent is throttlebench.slice's
// directory, listed, read and removed in beneath hier's mount point.
func cleanScopes(hier Hierarchy, parent string, stop func(unit string) error) (removed, stopped []string, skipped []Skipped, err error) {
	cgfs := hier.cgroupfs()
	entries, err := cgfs.readDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !ownerGone(hier.Root, scopeNameRE, e.Name()) {
			continue
		}
		scope := filepath.Join(parent, e.Name())
		// The slices first, by the slices' own rule: each is named for the
		// same owner, and one that holds processes is left and listed.
		r, s, err := hier.CleanStale(scope)
		removed, skipped = append(removed, r...), append(skipped, s...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		self := filepath.Join(scope, scopeSelf)
		if st, err := os.Lstat(self); err == nil && st.IsDir() {
			pids, err := procs(cgfs, self)
			switch {
			case err != nil:
				errs = append(errs, err)
				continue
			case len(pids) > 0:
				skipped = append(skipped, Skipped{self, fmt.Sprintf("holds processes %s that its run (gone) did not take with it; left alone", strings.Join(pids, ", "))})
			default:
				if err := rmdirEmpty(cgfs, self); err != nil {
					errs = append(errs, err)
					continue
				}
				removed = append(removed, self)
			}
		}
		// Stopping a scope kills what is in it: only one with no process
		// and no cgroup left below it is stopped.
		sub, err := cgfs.readDir(scope)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if slices.ContainsFunc(sub, fs.DirEntry.IsDir) {
			skipped = append(skipped, Skipped{scope, "a cgroup in it was left (above): the scope " + e.Name() + " is not stopped"})
			continue
		}
		pids, err := procs(cgfs, scope)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(pids) > 0 {
			skipped = append(skipped, Skipped{scope, fmt.Sprintf("holds processes %s: the scope %s is not stopped", strings.Join(pids, ", "), e.Name())})
			continue
		}
		if err := stop(e.Name()); err != nil {
			errs = append(errs, err)
			continue
		}
		stopped = append(stopped, e.Name())
	}
	return removed, stopped, skipped, errors.Join(errs...)
}
