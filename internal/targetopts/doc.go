// Package targetopts resolves latency --target's flags — the requests
// (--method, --header, --body), the client (--connections,
// --request-timeout), the verdict (--accept-status, --max-failures) and
// --serve's server (its command after --, --serve-ready) or, without
// --serve, the cgroup of a server already running (--cgroup PATH) — into
// the runner's Target, the failure rule, and the cgroup mode the run
// takes: a slice of its own for --serve's server, the current cgroup (in
// which nothing is made) otherwise.
//
// Everything is checked before anything is made: the URL, a port that is
// free and on this machine for --serve (a server not ours is never
// measured), the named cgroup (through internal/cgroupref). Bad input is
// a badinput.Error (exit 2). It reads /proc and resolves the target's host
// name; it writes nothing and prints nothing. What the flags a mode
// cannot take are, is internal/modes' table.
package targetopts
