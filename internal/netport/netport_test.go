package netport

import (
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fixtures are written in a little-endian machine's byte order, as
// the kernel of the machines these tests run on writes them.
func needLittleEndian(t *testing.T) {
	var b [2]byte
	binary.NativeEndian.PutUint16(b[:], 1)
	if b[0] != 1 {
		t.Skip("the fixtures are a little-endian kernel's")
	}
}

func TestParseListening(t *testing.T) {
	needLittleEndian(t)
	for _, tc := range []struct {
		file string
		want []Socket
	}{
		{"tcp", []Socket{
			{netip.MustParseAddrPort("127.0.0.1:8081"), 1001},
			{netip.MustParseAddrPort("0.0.0.0:8082"), 1002},
			// row 2 is a connection (st 01): not listed
			{netip.MustParseAddrPort("192.168.0.5:8083"), 1003},
		}},
		{"tcp6", []Socket{
			{netip.MustParseAddrPort("[::]:8084"), 1004},
			{netip.MustParseAddrPort("[::1]:8085"), 1005},
			{netip.MustParseAddrPort("[::ffff:127.0.0.1]:8086"), 1006},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			got, err := ParseListening(b)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := ParseListening([]byte("header\n   0: 0100007F:1F91 00000000:0000 0A\n"))
	assert.ErrorIs(t, err, ErrParse, "a short line")
	_, err = ParseListening([]byte("header\n   0: 0100007G:1F91 00000000:0000 0A 0 0 0 0 0 7\n"))
	assert.ErrorIs(t, err, ErrParse, "an address that is not hex")
	got, err := ParseListening([]byte("header only\n"))
	assert.NoError(t, err)
	assert.Empty(t, got)
}

func TestReaches(t *testing.T) {
	for _, tc := range []struct {
		listen, to string
		want       bool
	}{
		{"127.0.0.1:80", "127.0.0.1:80", true},
		{"127.0.0.1:80", "127.0.0.1:81", false},
		{"127.0.0.1:80", "127.0.0.2:80", false},
		{"0.0.0.0:80", "127.0.0.1:80", true},
		{"0.0.0.0:80", "[::1]:80", false},
		{"[::]:80", "127.0.0.1:80", true},
		{"[::]:80", "[::1]:80", true},
		{"[::1]:80", "127.0.0.1:80", false},
		{"[::ffff:127.0.0.1]:80", "127.0.0.1:80", true},
		{"192.168.0.5:80", "0.0.0.0:80", true},
		{"192.168.0.5:80", "127.0.0.1:80", false},
	} {
		got := Reaches(netip.MustParseAddrPort(tc.listen), netip.MustParseAddrPort(tc.to))
		assert.Equal(t, tc.want, got, "%s from %s", tc.listen, tc.to)
	}
}

// fakeProc is a proc tree: the fixtures' net files and, for each pid,
// its comm and fd links.
func fakeProc(t *testing.T, procs map[int][]string) FS {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "proc", "net"), 0o755))
	for _, f := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(root, "proc", "net", f), b, 0o644))
	}
	for pid, links := range procs {
		dir := filepath.Join(root, "proc", strconv.Itoa(pid))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "fd"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "comm"), []byte("server-"+strconv.Itoa(pid)+"\n"), 0o644))
		for i, l := range links {
			require.NoError(t, os.Symlink(l, filepath.Join(dir, "fd", strconv.Itoa(i))))
		}
	}
	return FS{Root: root}
}

func TestInUse(t *testing.T) {
	needLittleEndian(t)
	fs := fakeProc(t, map[int][]string{
		1234: {"/dev/null", "socket:[1001]", "pipe:[9]"},
		1240: {"socket:[1001]"}, // a forked worker shares it
		77:   {"socket:[1004]", "socket:[555]"},
	})
	for _, tc := range []struct {
		name, to string
		want     []Listener
	}{
		{"the address itself, held by two", "127.0.0.1:8081", []Listener{{Socket{netip.MustParseAddrPort("127.0.0.1:8081"), 1001},
			[]Process{{1234, "server-1234"}, {1240, "server-1240"}}}}},
		{"IPv4's wildcard, held by none found", "127.0.0.1:8082", []Listener{{Socket: Socket{netip.MustParseAddrPort("0.0.0.0:8082"), 1002}}}},
		{"IPv6's wildcard takes IPv4", "127.0.0.1:8084", []Listener{{Socket{netip.MustParseAddrPort("[::]:8084"), 1004}, []Process{{77, "server-77"}}}}},
		{"a v4-mapped address", "127.0.0.1:8086", []Listener{{Socket: Socket{netip.MustParseAddrPort("[::ffff:127.0.0.1]:8086"), 1006}}}},
		{"free", "127.0.0.1:9999", nil},
		{"another address's", "127.0.0.1:8083", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fs.InUse(netip.MustParseAddrPort(tc.to))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	got, err := fs.InUse(netip.MustParseAddrPort("127.0.0.1:8081"))
	require.NoError(t, err)
	assert.Equal(t, "pid 1234 (server-1234) and 1 other process", got[0].Describe())
	assert.Equal(t, map[uint64]bool{1004: true, 555: true}, fs.Sockets(77))
	assert.Nil(t, fs.Sockets(4321), "gone")
}

// This machine's own: a socket this test listens on is found, with this
// process as its holder.
func TestInUseReal(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	addr := l.Addr().(*net.TCPAddr).AddrPort()
	got, err := FS{Root: "/"}.InUse(addr)
	require.NoError(t, err)
	require.Len(t, got, 1, "%v", got)
	assert.Equal(t, addr, got[0].Addr)
	require.NotEmpty(t, got[0].Holders)
	assert.Equal(t, os.Getpid(), got[0].Holders[0].PID)
	assert.NotEmpty(t, got[0].Holders[0].Name)
	l.Close()
	got, err = FS{Root: "/"}.InUse(addr)
	require.NoError(t, err)
	assert.Empty(t, got, "free once closed")
}

func TestLocal(t *testing.T) {
	ifaddrs := []net.Addr{&net.IPNet{IP: net.ParseIP("192.168.0.5"), Mask: net.CIDRMask(24, 32)}}
	for a, want := range map[string]bool{"127.0.0.1": true, "127.3.4.5": true, "::1": true, "0.0.0.0": true, "::": true,
		"192.168.0.5": true, "::ffff:192.168.0.5": true, "192.168.0.6": false, "10.0.0.1": false} {
		assert.Equal(t, want, Local(netip.MustParseAddr(a), ifaddrs), a)
	}
}
