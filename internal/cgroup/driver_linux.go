//go:build linux

package cgroup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	sddbus "github.com/coreos/go-systemd/v22/dbus"
	godbus "github.com/godbus/dbus/v5"
)

// busTimeout bounds each call to systemd: a bus that does not answer in
// that long is taken as no bus (auto then picks cgroupfs).
const busTimeout = 5 * time.Second

// DriverFacts reads what ChooseDriver needs from this host. The bus is
// asked only where systemd is the init on cgroup v2, and without root only
// where cpu is delegated to the user's manager, so a host without systemd
// (our CI host, the VM, a container) never dials it.
func (h Host) DriverFacts(ctx context.Context) DriverFacts {
	var f DriverFacts
	if st, err := os.Stat(h.path("/run/systemd/system")); err == nil && st.IsDir() {
		f.SystemdInit = true
	}
	hier, err := h.CPUHierarchy(0)
	f.V2 = err == nil && hier.WholeV2()
	f.Root = os.Geteuid() == 0
	if f.SystemdInit && f.V2 && !f.Root {
		// The user's manager, as logind starts it: what systemd delegated
		// to it is its cgroup's controllers.
		uid := os.Getuid()
		unit := fmt.Sprintf("user@%d.service", uid)
		if c, err := hier.cgroupfs().readFile(filepath.Join(hier.MountPoint, fmt.Sprintf("user.slice/user-%d.slice", uid), unit, "cgroup.controllers")); err == nil {
			f.UserManager, f.UserControllers = unit, strings.Fields(string(c))
		}
	}
	if f.SystemdInit && f.V2 && (f.Root || slices.Contains(f.UserControllers, "cpu")) {
		f.Bus = busAnswers(ctx, !f.Root)
	}
	return f
}

// connect dials the system manager's bus, or the user's own manager's
// (the user bus, found by DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR) for
// a user who is not root.
func connect(ctx context.Context, user bool) (*sddbus.Conn, error) {
	if user {
		return sddbus.NewUserConnectionContext(ctx)
	}
	return sddbus.NewWithContext(ctx)
}

func busAnswers(ctx context.Context, user bool) error {
	ctx, cancel := context.WithTimeout(ctx, busTimeout)
	defer cancel()
	conn, err := connect(ctx, user)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.GetManagerProperty("Version")
	return err
}

// NewDriver is the driver of that name (DriverSystemd or DriverCgroupfs,
// as ChooseDriver gave it).
func (h Host) NewDriver(name string) Driver {
	if name == DriverSystemd {
		return &systemdDriver{host: h, user: os.Geteuid() != 0}
	}
	return cgroupfsDriver{}
}

// scopeSelf is the leaf of a scope throttlebench's own process sits in: a
// cgroup with children may hold no process, and the slices are the
// scope's children. Nothing limits it.
const scopeSelf = "self"

// systemdDriver runs the slices in a transient scope of throttlebench's own,
// throttlebench-<run id>.scope in throttlebench.slice, which systemd
// delegates to it (Delegate=yes): systemd enables the controllers down to
// the scope and leaves the subtree below it to us. The scope must hold a
// process to start, so it starts with ours; ours then moves into the
// scope's leaf scopeSelf, the scope's cgroup.subtree_control (ours by the
// delegation) gets +cpu, and the slices are made beside the leaf, with
// cpu.max and cpu.max.burst written by the runner exactly as asked
// (systemd has no burst property and rounds CPUQuota= to 10 ms a second).
// Close moves our process back where it came from and stops the scope:
// stopping it with us inside would kill us.
//
// A user who is not root gets the same from their own manager (user is
// set): the scope is user@<uid>.service/throttlebench.slice/<name>.scope,
// whose files are the user's by the delegation.
type systemdDriver struct {
	host   Host
	user   bool // through the user's own manager, on the user bus
	conn   *sddbus.Conn
	unit   string
	scope  string   // the scope's directory
	origin string   // our cgroup's directory before the scope
	top    string   // the hierarchy's top
	cgfs   cgroupfs // the hierarchy's mount point, for the scope's files
}

func (d *systemdDriver) Name() string { return DriverSystemd }

// scopeName is throttlebench-<pid>-<start time>-<random>.scope: the owner's
// PID and start time, as in a slice's name, so that what is left of a run
// that no longer lives can be told from a live one.
func (d *systemdDriver) scopeName() (string, error) {
	st, err := procStartTime(d.host.Root, os.Getpid())
	if err != nil {
		return "", err
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("throttlebench-%d-%d-%s.scope", os.Getpid(), st, hex.EncodeToString(b[:])), nil
}

// selfDir is this process's cgroup directory (cgroup v2, mounted whole).
func (d *systemdDriver) selfDir(hier Hierarchy) (string, error) {
	cgs, err := d.host.procCgroup("self")
	if err != nil {
		return "", err
	}
	if p, ok := cgs.v2(); ok {
		return filepath.Join(hier.MountPoint, p), nil
	}
	return "", errors.New("no cgroup v2 line in /proc/self/cgroup")
}

func (d *systemdDriver) Open(ctx context.Context) (p Place, err error) {
	hier, err := d.host.CPUHierarchy(2)
	if err != nil {
		return p, err
	}
	if d.origin, err = d.selfDir(hier); err != nil {
		return p, err
	}
	d.top, d.cgfs = hier.MountPoint, hier.cgroupfs()
	name, err := d.scopeName()
	if err != nil {
		return p, err
	}
	cctx, cancel := context.WithTimeout(ctx, busTimeout)
	defer cancel()
	// Not cctx: godbus closes a connection when the context it was made
	// with ends, and Close needs it after the run's context is cancelled.
	if d.conn, err = connect(context.Background(), d.user); err != nil {
		return p, fmt.Errorf("systemd: connect to the bus: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, d.Close())
		}
	}()
	// The scopes of runs that no longer live (SIGKILLed with a slice
	// holding a process not theirs) are tidied first, as the runner tidies
	// stale slices: what is left is listed by cleanup.
	_, stopped, skipped, _ := cleanScopes(hier, scopeBase(hier, d.user), func(unit string) error { return stopScope(d.conn, unit) })
	notes := scopeNotes(stopped, skipped)
	props := []sddbus.Property{
		sddbus.PropDescription("throttlebench run " + strconv.Itoa(os.Getpid())),
		sddbus.PropSlice(ScopeSlice),
		sddbus.PropPids(uint32(os.Getpid())),
		{Name: "Delegate", Value: godbus.MakeVariant(true)},
		// A scope that fails is not kept as a failed unit to reset.
		{Name: "CollectMode", Value: godbus.MakeVariant("inactive-or-failed")},
	}
	done := make(chan string, 1)
	if _, err = d.conn.StartTransientUnitContext(cctx, name, "fail", props, done); err != nil {
		return p, fmt.Errorf("systemd: start %s: %w", name, err)
	}
	d.unit = name
	select {
	case r := <-done:
		if r != "done" {
			return p, fmt.Errorf("systemd: start %s: %s", name, r)
		}
	case <-cctx.Done():
		return p, fmt.Errorf("systemd: start %s: %w", name, cctx.Err())
	}
	if d.scope, err = d.selfDir(hier); err != nil {
		return p, err
	}
	if filepath.Base(d.scope) != name {
		return p, fmt.Errorf("systemd: started %s, but this process is in %s", name, d.scope)
	}
	// Into the leaf, then the controllers for the slices: the scope may
	// enable them for its children only once no process sits in it.
	self := filepath.Join(d.scope, scopeSelf)
	if err = d.cgfs.mkdir(self, 0o755); err != nil {
		return p, fmt.Errorf("systemd: %w", err)
	}
	if err = d.writeProcs(self, os.Getpid()); err != nil {
		return p, fmt.Errorf("systemd: move this process into %s: %w", self, err)
	}
	have, err := d.cgfs.readFile(filepath.Join(d.scope, "cgroup.controllers"))
	if err != nil {
		return p, err
	}
	var enable []string
	for _, c := range []string{"cpu", "cpuset"} {
		if slices.Contains(strings.Fields(string(have)), c) {
			enable = append(enable, "+"+c)
		}
	}
	if len(enable) > 0 {
		if err = d.cgfs.writeFile(filepath.Join(d.scope, "cgroup.subtree_control"), []byte(strings.Join(enable, " "))); err != nil {
			return p, fmt.Errorf("systemd: enable %s in %s: %w", strings.Join(enable, " "), d.scope, err)
		}
	}
	return Place{Driver: DriverSystemd, Parent: d.scope, Unit: name, Notes: notes}, nil
}

// writeProcs moves a process (all its threads, on cgroup v2) into dir,
// below the hierarchy's mount point.
func (d *systemdDriver) writeProcs(dir string, pid int) error {
	return d.cgfs.writeFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)))
}

// Close moves this process back to where it was, removes the scope's leaf
// and stops the scope. It runs on every exit path (a signal cancelled the
// run's context already: its own context is fresh).
func (d *systemdDriver) Close() error {
	if d.conn == nil {
		return nil
	}
	defer func() { d.conn.Close(); d.conn = nil }()
	if d.unit == "" {
		return nil
	}
	var errs []error
	if d.scope != "" {
		// Back to where we came from; if that is gone, to the top, which
		// root may always enter.
		if err := d.writeProcs(d.origin, os.Getpid()); err != nil && d.user {
			// A user may move a process only within their manager's
			// subtree: from a login session (runuser, ssh) we stay in the
			// leaf, and the user's manager stops the scope, and removes the
			// leaf, once we exit.
			return nil
		} else if err != nil {
			if err2 := d.writeProcs(d.top, os.Getpid()); err2 != nil {
				// Stopping the scope with us in it would kill us: leave it,
				// systemd stops it once we exit.
				return fmt.Errorf("systemd: leave %s: %w", d.scope, errors.Join(err, err2))
			}
		}
		if err := rmdirEmpty(d.cgfs, filepath.Join(d.scope, scopeSelf)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	// Empty once we left it, the scope may have stopped itself and been
	// collected (CollectMode=inactive-or-failed): stopScope takes that.
	if err := stopScope(d.conn, d.unit); err != nil {
		errs = append(errs, err)
	}
	d.unit = ""
	return errors.Join(errs...)
}
