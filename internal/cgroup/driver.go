package cgroup

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/words"
)

// The cgroup drivers: who makes the place a run's slices go in. cgroupfs
// is throttlebench's own directories (its default parent at the top of the
// cpu hierarchy, or a --parent); systemd is a transient scope of ours,
// delegated to us by systemd, on hosts where systemd owns the tree and
// says not to make cgroups beside its own.
const (
	DriverAuto     = "auto"
	DriverSystemd  = "systemd"
	DriverCgroupfs = "cgroupfs"
)

// ScopeSlice is the slice throttlebench's systemd scopes go in.
const ScopeSlice = "throttlebench.slice"

// Drivers are --cgroup-driver's words.
var Drivers = []string{DriverAuto, DriverSystemd, DriverCgroupfs}

// Place is where one process's slices go, as its driver made it.
type Place struct {
	Driver string
	// Parent is the directory the slices go in: "" for the default parent
	// (or the --parent given), the scope's directory under systemd.
	Parent string
	// Unit is the systemd scope ("" under cgroupfs).
	Unit string
	// Notes are what making the place found on its way (the scopes of runs
	// that no longer live, tidied or left), for the first result's warnings.
	Notes []string
}

// Driver makes the place for a process's slices and undoes it. The runner
// and the fleet see only the Place's Parent, as if it were a --parent.
type Driver interface {
	Name() string
	// Open makes the place; nothing is left behind when it fails.
	Open(ctx context.Context) (Place, error)
	// Close undoes what Open made, once the slices in it are gone; it is
	// safe to call whether or not Open succeeded.
	Close() error
}

// DriverFacts are what choosing a driver depends on.
type DriverFacts struct {
	SystemdInit bool  // /run/systemd/system exists: systemd is the init
	V2          bool  // the cpu hierarchy is cgroup v2, mounted whole (not a container's part)
	Root        bool  // running as root: the system manager; otherwise the user's own
	Bus         error // why the manager's bus (system or user) did not answer; nil when it did
	// UserManager is the user's systemd manager (user@<uid>.service) where
	// one runs for a user who is not root, and UserControllers the
	// controllers systemd delegated to it (its cgroup.controllers).
	UserManager     string
	UserControllers []string
}

// DelegateDropIn is the drop-in that delegates cpu to users' managers
// where systemd does not by default (before v252, e.g. Ubuntu 22.04's 249).
const DelegateDropIn = "/etc/systemd/system/user@.service.d/delegate.conf"

// NoCPUDelegated is why a user who is not root cannot have slices through
// systemd: cpu is not delegated to their manager. It is bad input, as
// the line says what to change.
type NoCPUDelegated struct {
	Manager     string
	Controllers []string
}

func (e *NoCPUDelegated) Error() string {
	has := strings.Join(e.Controllers, " ")
	if has == "" {
		has = "none"
	}
	return fmt.Sprintf("cpu is not delegated to your systemd manager %s (it has: %s), so slices cannot be made without root: "+
		"add %s with \"[Service]\" and \"Delegate=cpu cpuset io memory pids\" (then systemctl daemon-reload and log in again), "+
		"or measure without it with --cgroup current", e.Manager, has, DelegateDropIn)
}

// CpusetUndelegated is why --cpuset cannot work through a user's own
// manager: cpuset is not among the controllers systemd delegated to it
// (systemd 252 delegates cpu memory pids). nil for root, whose scope is
// delegated every controller, or where the manager has cpuset.
func CpusetUndelegated(f DriverFacts) error {
	if f.Root || f.UserManager == "" || slices.Contains(f.UserControllers, "cpuset") {
		return nil
	}
	return fmt.Errorf("cpuset is not delegated to your systemd manager %s (it has: %s): add it to Delegate= in %s (then systemctl daemon-reload and log in again), run as root, or leave out --cpuset",
		f.UserManager, strings.Join(f.UserControllers, " "), DelegateDropIn)
}

// ChooseDriver picks the driver for want (one of Drivers) and says why.
// auto picks systemd only where all of DriverFacts say it can work, and
// cgroupfs elsewhere, so hosts without systemd (cgroup v1, containers, a
// plain init, our CI host and VM) behave as they always did. An explicit
// systemd where it cannot work is an error naming what is missing.
func ChooseDriver(want string, f DriverFacts) (string, string, error) {
	missing := ""
	switch {
	case !f.SystemdInit:
		missing = "systemd is not the init here (no /run/systemd/system)"
	case !f.V2:
		missing = "the cpu controller is not on a whole cgroup v2 hierarchy"
	case !f.Root && f.UserManager != "" && !slices.Contains(f.UserControllers, "cpu"):
		// auto would want the user's manager, which cannot give cpu.
		if want == DriverCgroupfs {
			return DriverCgroupfs, "asked for", nil
		}
		return "", "", &NoCPUDelegated{f.UserManager, f.UserControllers}
	case !f.Root && f.UserManager == "":
		missing = "without root, slices through systemd need your own manager, and no user@<uid>.service of yours runs"
	case f.Bus != nil && !f.Root:
		missing = fmt.Sprintf("your systemd manager's bus (the user bus) does not answer (%v)", f.Bus)
	case f.Bus != nil:
		missing = fmt.Sprintf("systemd's bus does not answer (%v)", f.Bus)
	}
	switch want {
	case DriverCgroupfs:
		return DriverCgroupfs, "asked for", nil
	case DriverSystemd:
		if missing != "" {
			return "", "", fmt.Errorf("%s", missing)
		}
		return DriverSystemd, "asked for", nil
	case DriverAuto:
		if missing != "" {
			return DriverCgroupfs, "auto: " + missing, nil
		}
		if !f.Root {
			return DriverSystemd, "auto: systemd is the init on cgroup v2, cpu is delegated to your manager " + f.UserManager + " and its bus answers", nil
		}
		return DriverSystemd, "auto: systemd is the init on cgroup v2 and its bus answers", nil
	}
	return "", "", fmt.Errorf("unknown cgroup driver %q", want)
}

// cgroupfsDriver makes nothing: the runner makes its default parent, or
// uses the --parent given, as it always did.
type cgroupfsDriver struct{}

func (cgroupfsDriver) Name() string                        { return DriverCgroupfs }
func (cgroupfsDriver) Open(context.Context) (Place, error) { return Place{Driver: DriverCgroupfs}, nil }
func (cgroupfsDriver) Close() error                        { return nil }

// scopeNameRE is a scope's name as systemdDriver.scopeName makes it: the
// owner's PID and start time, as in a slice's name.
var scopeNameRE = regexp.MustCompile(`^throttlebench-(\d+)-(\d+)-[0-9a-f]{8}\.scope$`)

// scopeNotes says what the tidying before a run did, as the runner says it
// of stale slices: the scopes of runs that no longer live that were
// stopped, and those left running because a cgroup in them holds
// processes we did not start.
func scopeNotes(stopped []string, skipped []Skipped) []string {
	var notes []string
	if len(stopped) > 0 {
		notes = append(notes, fmt.Sprintf("stopped %s left by runs that no longer live: %s", words.N(len(stopped), "scope"), strings.Join(stopped, ", ")))
	}
	var left []string
	for _, sk := range skipped {
		for _, el := range strings.Split(sk.Dir, "/") {
			if scopeNameRE.MatchString(el) && !slices.Contains(left, el) {
				left = append(left, el)
			}
		}
	}
	if len(left) > 0 {
		notes = append(notes, fmt.Sprintf("left %s of runs that no longer live running: %s: a cgroup in each holds processes we did not start (throttlebench cleanup says which)", words.N(len(left), "scope"), strings.Join(left, ", ")))
	}
	return notes
}
