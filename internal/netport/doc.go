// Package netport says who listens on a TCP port of this machine: the
// listening sockets of proc/net/tcp and tcp6, and the processes that hold
// them (a proc/PID/fd link "socket:[INODE]"). latency --serve asks it
// before it starts a server (is the target's port free?) and while it
// waits for one (is the socket on the port the server's own?). The proc
// root is injected; reading and parsing are apart, the parsing pure.
//
// It may not change anything: it reads.
package netport
