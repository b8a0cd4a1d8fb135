package target

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/netport"
	"github.com/throttlebench/throttlebench/internal/words"
)

// PortPlaceholder, in --serve's command and in --target's URL, is a free
// port throttlebench picks for each configuration (the server also gets
// it as PORT in its environment).
const PortPlaceholder = "{port}"

// UsesPort says whether the target asks for a port of throttlebench's.
func (t Target) UsesPort() bool {
	if strings.Contains(t.HTTP.URL, PortPlaceholder) {
		return true
	}
	for _, a := range t.Serve {
		if strings.Contains(a, PortPlaceholder) {
			return true
		}
	}
	return false
}

// withPort is t with port in place of PortPlaceholder, in the URL and
// in the command.
func (t Target) withPort(port int) Target {
	p := strconv.Itoa(port)
	t.HTTP.URL = strings.ReplaceAll(t.HTTP.URL, PortPlaceholder, p)
	serve := make([]string, len(t.Serve))
	for i, a := range t.Serve {
		serve[i] = strings.ReplaceAll(a, PortPlaceholder, p)
	}
	t.Serve = serve
	return t
}

// freePort is a port no socket holds now, on any address (a wildcard's
// bind conflicts with every address's): the server may bind it a moment
// later, or something else may; readiness tells which.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port for %s: %w", PortPlaceholder, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// slicePids are the processes in the slice at dir (its cgroup.procs).
func slicePids(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// ownProbe is readiness for a --serve server in the slice at dir: true
// once a socket listening where a connection to addrs goes is held by a
// process in the slice and none is held by another; an error once one is
// held by another process only: that one would answer, and it is not
// ours (taken between the check of the flags and now, or shared with
// SO_REUSEPORT).
func (r run) ownProbe(addr string, addrs []netip.AddrPort, dir string) func() (bool, error) {
	return func() (bool, error) {
		socks, err := r.e.Probe.Listeners(addrs...)
		if err != nil {
			return false, fmt.Errorf("read the sockets listening on %s: %w", addr, err)
		}
		if len(socks) == 0 {
			return false, nil
		}
		pids, err := r.e.SlicePids(dir)
		if err != nil {
			return false, fmt.Errorf("read the server's slice: %w", err)
		}
		in := map[int]bool{}
		ours := map[uint64]bool{}
		for _, pid := range pids {
			in[pid] = true
			for s := range r.e.Probe.Sockets(pid) {
				ours[s] = true
			}
		}
		return judgeListeners(addr, socks, ours, func(pid int) bool { return in[pid] }, r.e.Probe.Holders)
	}
}

// judgeListeners is ownProbe's rule on what it read: the listening
// sockets a connection to addr reaches, the sockets the slice's processes
// hold, whether a process is in the slice, and how to find the holders
// of the others (only asked for when there are others: it reads every
// process's fds).
func judgeListeners(addr string, socks []netport.Socket, ours map[uint64]bool, inSlice func(int) bool,
	holders func(...uint64) map[uint64][]netport.Process) (bool, error) {
	mine := false
	var others []uint64
	for _, s := range socks {
		if ours[s.Inode] {
			mine = true
		} else {
			others = append(others, s.Inode)
		}
	}
	if len(others) == 0 {
		return mine, nil
	}
	held := holders(others...)
	for _, s := range socks {
		l := netport.Listener{Socket: s, Holders: held[s.Inode]}
		if len(l.Holders) == 0 || inSlice(l.Holders[0].PID) {
			continue // gone meanwhile, or the slice's since: asked again
		}
		return false, &foreignListener{addr: addr, by: l.Describe()}
	}
	return false, nil
}

// foreignListener is a server not ours answering on the target.
type foreignListener struct{ addr, by string }

func (e *foreignListener) Error() string {
	return fmt.Sprintf("is not what answers on %s: %s listens there, outside the server's slice, and would be measured instead (the port was taken after throttlebench found it free)", e.addr, e.by)
}

// serverError is a --serve server that failed to start or to become
// ready: the message, what the run adds on its way out, then the end of
// the server's stderr as lines (words.WithStderr).
type serverError struct {
	msg    string
	notes  []string
	stderr string
	exited bool // its stderr is whole: say so when it is empty
}

func (e *serverError) Error() string {
	msg := e.msg
	for _, n := range e.notes {
		msg += "; " + n
	}
	if e.stderr == "" && !e.exited {
		return msg
	}
	return words.WithStderr(msg, e.stderr)
}
