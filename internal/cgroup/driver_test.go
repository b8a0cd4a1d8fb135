package cgroup

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChooseDriver(t *testing.T) {
	ok := DriverFacts{SystemdInit: true, V2: true, Root: true}
	noBus := ok
	noBus.Bus = errors.New("dial unix /run/dbus/system_bus_socket: no such file")
	v1 := ok
	v1.V2 = false
	user := ok
	user.Root = false
	// A user whose manager has cpu (systemd 252's default) and one whose
	// manager has not (systemd 249, or a Delegate=memory pids drop-in).
	userCPU := user
	userCPU.UserManager, userCPU.UserControllers = "user@1000.service", []string{"cpu", "memory", "pids"}
	userNoBus := userCPU
	userNoBus.Bus = errors.New("dial unix /run/user/1000/bus: no such file")
	userNoCPU := user
	userNoCPU.UserManager, userNoCPU.UserControllers = "user@1000.service", []string{"memory", "pids"}
	for _, c := range []struct {
		name, want string
		facts      DriverFacts
		got, why   string // why: a part of the reason
		err        string
	}{
		{"auto on a systemd v2 host", DriverAuto, ok, DriverSystemd, "bus answers", ""},
		// Our CI host and VM: no systemd, nothing changes.
		{"auto without systemd", DriverAuto, DriverFacts{V2: true, Root: true}, DriverCgroupfs, "not the init", ""},
		{"auto on cgroup v1", DriverAuto, v1, DriverCgroupfs, "cgroup v2", ""},
		// No manager of the user's own (no session, no linger): as before.
		{"auto without root, no manager", DriverAuto, user, DriverCgroupfs, "no user@<uid>.service", ""},
		{"systemd without root, no manager", DriverSystemd, user, "", "", "no user@<uid>.service"},
		{"auto without root, cpu delegated", DriverAuto, userCPU, DriverSystemd, "cpu is delegated to your manager user@1000.service", ""},
		{"systemd without root, cpu delegated", DriverSystemd, userCPU, DriverSystemd, "asked for", ""},
		{"cgroupfs without root, cpu delegated", DriverCgroupfs, userCPU, DriverCgroupfs, "asked for", ""},
		{"auto without root, no user bus", DriverAuto, userNoBus, DriverCgroupfs, "user bus", ""},
		{"systemd without root, no user bus", DriverSystemd, userNoBus, "", "", "user bus"},
		{"auto without root, cpu not delegated", DriverAuto, userNoCPU, "", "", "cpu is not delegated to your systemd manager user@1000.service (it has: memory pids)"},
		{"systemd without root, cpu not delegated", DriverSystemd, userNoCPU, "", "", DelegateDropIn + ` with "[Service]" and "Delegate=cpu cpuset io memory pids"`},
		{"cgroupfs without root, cpu not delegated", DriverCgroupfs, userNoCPU, DriverCgroupfs, "asked for", ""},
		{"auto without a bus", DriverAuto, noBus, DriverCgroupfs, "does not answer", ""},
		{"cgroupfs asked for", DriverCgroupfs, ok, DriverCgroupfs, "asked for", ""},
		{"systemd asked for", DriverSystemd, ok, DriverSystemd, "asked for", ""},
		{"systemd asked for without systemd", DriverSystemd, DriverFacts{}, "", "", "not the init"},
		{"systemd asked for without a bus", DriverSystemd, noBus, "", "", "does not answer"},
		{"unknown", "docker", ok, "", "", "unknown"},
	} {
		got, why, err := ChooseDriver(c.want, c.facts)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.got || !strings.Contains(why, c.why) {
			t.Errorf("%s: %q, %q, %v; want %q because of %q", c.name, got, why, err, c.got, c.why)
		}
	}
}

func TestScopeNotes(t *testing.T) {
	assert.Empty(t, scopeNotes(nil, nil), "nothing tidied, nothing said")
	a, b := "throttlebench-1-2-0000000a.scope", "throttlebench-3-4-0000000b.scope"
	assert.Equal(t, []string{
		"stopped 2 scopes left by runs that no longer live: " + a + ", " + b,
		"left 1 scope of runs that no longer live running: " + a + ": a cgroup in each holds processes we did not start (throttlebench cleanup says which)",
	}, scopeNotes([]string{a, b}, []Skipped{
		{"/sys/fs/cgroup/throttlebench.slice/" + a + "/tb-1-2-deadbeef", "holds processes 7"},
		{"/sys/fs/cgroup/throttlebench.slice/" + a, "a cgroup in it was left (above)"},
	}), "a scope is named once, however many of its cgroups were left")
}

func TestCpusetUndelegated(t *testing.T) {
	user := DriverFacts{SystemdInit: true, V2: true, UserManager: "user@1000.service", UserControllers: []string{"cpu", "memory", "pids"}}
	err := CpusetUndelegated(user)
	require.Error(t, err)
	assert.Equal(t, "cpuset is not delegated to your systemd manager user@1000.service (it has: cpu memory pids): add it to Delegate= in "+
		DelegateDropIn+" (then systemctl daemon-reload and log in again), run as root, or leave out --cpuset", err.Error())
	user.UserControllers = append(user.UserControllers, "cpuset")
	assert.NoError(t, CpusetUndelegated(user), "delegated by a drop-in")
	assert.NoError(t, CpusetUndelegated(DriverFacts{SystemdInit: true, V2: true, Root: true}), "root's scope has every controller")
}
