package netport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/words"
)

// ErrParse is a line of proc/net/tcp that is not as the kernel writes it.
var ErrParse = errors.New("netport: malformed line")

// Socket is a listening TCP socket: its local address and its inode.
type Socket struct {
	Addr  netip.AddrPort
	Inode uint64
}

// Process is a process that holds a socket.
type Process struct {
	PID  int
	Name string // its comm; "" where it could not be read
}

func (p Process) String() string {
	if p.Name == "" {
		return fmt.Sprintf("pid %d", p.PID)
	}
	return fmt.Sprintf("pid %d (%s)", p.PID, p.Name)
}

// Listener is a listening socket and the processes that hold it, lowest
// PID first (none where none was found: it went, or it is out of sight).
type Listener struct {
	Socket
	Holders []Process
}

// listenState is TCP_LISTEN in proc/net/tcp's st column.
const listenState = "0A"

// ParseListening reads a proc/net/tcp or tcp6 file: its listening
// sockets.
func ParseListening(b []byte) ([]Socket, error) {
	var out []Socket
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first { // the header
			first = false
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 10 {
			return nil, fmt.Errorf("%w: %q", ErrParse, line)
		}
		if f[3] != listenState {
			continue
		}
		addr, err := parseAddr(f[1])
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrParse, line, err)
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: inode: %v", ErrParse, line, err)
		}
		out = append(out, Socket{Addr: addr, Inode: inode})
	}
	return out, sc.Err()
}

// parseAddr reads "0100007F:1F91": the address as the kernel's 32-bit
// words in this machine's byte order (one for IPv4, four for IPv6), the
// port in hex.
func parseAddr(s string) (netip.AddrPort, error) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, errors.New("no port")
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port: %v", err)
	}
	raw, err := hex.DecodeString(host)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q", host)
	}
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(raw[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a, uint16(p)), nil
}

// Reaches says whether a connection to to would be accepted by a socket
// listening on l: the same port, and the same address or a wildcard of
// its family ([::] takes IPv4 too unless it is IPV6_V6ONLY, which
// proc/net does not show: counted as taking it). A connection to a
// wildcard goes to this machine: any address on the port.
func Reaches(l, to netip.AddrPort) bool {
	if l.Port() != to.Port() {
		return false
	}
	la, ta := l.Addr().Unmap(), to.Addr().Unmap()
	switch {
	case ta.IsUnspecified() || la == ta:
		return true
	case la.IsUnspecified():
		return la.Is6() || ta.Is4()
	}
	return false
}

// FS is a proc filesystem: Root's proc ("/" for this machine's).
type FS struct{ Root string }

func (fs FS) proc(parts ...string) string {
	return filepath.Join(append([]string{fs.Root, "proc"}, parts...)...)
}

// Listeners are the listening sockets a connection to any of to reaches,
// without their holders (Holders finds them).
func (fs FS) Listeners(to ...netip.AddrPort) ([]Socket, error) {
	var out []Socket
	for _, name := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fs.proc("net", name))
		if errors.Is(err, os.ErrNotExist) && name == "tcp6" {
			continue // no IPv6 in this kernel
		}
		if err != nil {
			return nil, err
		}
		socks, err := ParseListening(b)
		if err != nil {
			return nil, err
		}
		for _, s := range socks {
			if slices.ContainsFunc(to, func(t netip.AddrPort) bool { return Reaches(s.Addr, t) }) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// InUse is Listeners with their holders: who would answer a connection
// to to.
func (fs FS) InUse(to ...netip.AddrPort) ([]Listener, error) {
	socks, err := fs.Listeners(to...)
	if err != nil || len(socks) == 0 {
		return nil, err
	}
	inodes := make([]uint64, len(socks))
	for i, s := range socks {
		inodes[i] = s.Inode
	}
	held := fs.Holders(inodes...)
	out := make([]Listener, len(socks))
	for i, s := range socks {
		out[i] = Listener{Socket: s, Holders: held[s.Inode]}
	}
	return out, nil
}

// Holders finds the processes that hold each inode's socket, among every
// process in proc; a process that went meanwhile, or whose fds cannot be
// read, is passed over.
func (fs FS) Holders(inodes ...uint64) map[uint64][]Process {
	want := map[uint64]bool{}
	for _, in := range inodes {
		want[in] = true
	}
	out := map[uint64][]Process{}
	ents, err := os.ReadDir(fs.proc())
	if err != nil {
		return out
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		var p *Process
		for in := range fs.Sockets(pid) {
			if !want[in] {
				continue
			}
			if p == nil {
				p = &Process{PID: pid, Name: fs.name(pid)}
			}
			if !slices.ContainsFunc(out[in], func(q Process) bool { return q.PID == pid }) {
				out[in] = append(out[in], *p)
			}
		}
	}
	for _, ps := range out {
		slices.SortFunc(ps, func(a, b Process) int { return a.PID - b.PID })
	}
	return out
}

// Sockets are the inodes of the sockets pid holds open; none where its
// fds cannot be read (it went).
func (fs FS) Sockets(pid int) map[uint64]bool {
	dir := fs.proc(strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[uint64]bool{}
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if in, ok := socketInode(target); ok {
			out[in] = true
		}
	}
	return out
}

// socketInode reads a fd link's "socket:[12345]".
func socketInode(link string) (uint64, bool) {
	rest, ok := strings.CutPrefix(link, "socket:[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return 0, false
	}
	in, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64)
	return in, err == nil
}

func (fs FS) name(pid int) string {
	b, err := os.ReadFile(fs.proc(strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Describe names who holds a listener, for a message: "pid 1234
// (python3)", the lowest PID where several share it (a server's forked
// workers); "" when none is known.
func (l Listener) Describe() string {
	switch len(l.Holders) {
	case 0:
		return ""
	case 1:
		return l.Holders[0].String()
	}
	return fmt.Sprintf("%s and %s", l.Holders[0], words.N(len(l.Holders)-1, "other process"))
}

// Local says whether a connection to a stays on this machine: a loopback
// or wildcard address, or one of ifaddrs (net.InterfaceAddrs).
func Local(a netip.Addr, ifaddrs []net.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsUnspecified() {
		return true
	}
	for _, ia := range ifaddrs {
		if n, ok := ia.(*net.IPNet); ok {
			if b, ok := netip.AddrFromSlice(n.IP); ok && b.Unmap() == a {
				return true
			}
		}
	}
	return false
}

// Resolve is where a connection to hostport ("127.0.0.1:8080",
// "localhost:8080") may go: the address itself, or every address its
// name resolves to.
func Resolve(ctx context.Context, hostport string) ([]netip.AddrPort, error) {
	host, portS, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portS, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %v", portS, err)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.AddrPort{netip.AddrPortFrom(a, uint16(port))}, nil
	}
	as, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	out := make([]netip.AddrPort, len(as))
	for i, a := range as {
		out[i] = netip.AddrPortFrom(a.Unmap(), uint16(port))
	}
	return out, nil
}
