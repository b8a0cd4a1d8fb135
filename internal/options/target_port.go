package options

import (
	"context"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/netport"
	"github.com/throttlebench/throttlebench/internal/target"
)

// targetURL parses --target. Its port may be target.PortPlaceholder,
// which only --serve fills (a free port per configuration): checked as
// if it were a port.
func (t *Target) targetURL() (*url.URL, error) {
	raw := t.URL
	if strings.Contains(raw, target.PortPlaceholder) {
		if !t.Serve {
			return nil, badinput.Errorf("target", "invalid --target %q: %s is a port that --serve picks; without --serve, give the server's own port", t.URL, target.PortPlaceholder)
		}
		raw = strings.ReplaceAll(raw, target.PortPlaceholder, "1")
		if u, err := url.Parse(raw); err != nil || !strings.HasSuffix(u.Host, ":1") || strings.Count(t.URL, target.PortPlaceholder) != 1 {
			return nil, badinput.Errorf("target", "invalid --target %q: %s stands for the port, once: http://127.0.0.1:%s/", t.URL, target.PortPlaceholder, target.PortPlaceholder)
		}
	}
	return url.Parse(raw)
}

// resolveTimeout bounds the lookup of --target's host name.
const resolveTimeout = 5 * time.Second

// servePort checks where --serve's server will listen, before anything
// is made: on this machine (the server is started here), on a port that
// is free, or {port}, which throttlebench picks free. A server already
// listening there would answer in ours' place; the check can race with
// one that starts meanwhile, which readiness then catches (the run fails).
func (t *Target) servePort(args []string) error {
	inURL := strings.Contains(t.URL, target.PortPlaceholder)
	if !inURL && slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, target.PortPlaceholder) }) {
		return badinput.Errorf("target", "invalid --target %q: the command's %s is a port throttlebench picks, and the requests go there only with %s in --target too, such as http://127.0.0.1:%s/",
			t.URL, target.PortPlaceholder, target.PortPlaceholder, target.PortPlaceholder)
	}
	hostport, err := target.HostPort(strings.ReplaceAll(t.URL, target.PortPlaceholder, "1"))
	if err != nil {
		return badinput.Errorf("target", "invalid --target %q: %v", t.URL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := netport.Resolve(ctx, hostport)
	if err != nil {
		return badinput.Errorf("target", "invalid --target %q: %v", t.URL, err)
	}
	ifaddrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if !netport.Local(a.Addr(), ifaddrs) {
			return badinput.Errorf("target", "invalid --target %q: --serve starts the server on this machine, and %s is not one of its addresses", t.URL, a.Addr())
		}
	}
	if inURL {
		return nil
	}
	// Unreadable sockets (no /proc): readiness still tells ours apart.
	ls, _ := netport.FS{Root: "/"}.InUse(addrs...)
	if len(ls) == 0 {
		return nil
	}
	by := ""
	for _, l := range ls {
		if d := l.Describe(); d != "" {
			by = " by " + d
			break
		}
	}
	return badinput.Errorf("target", "--target: %s is in use%s; --serve starts its own server there (stop that one, or give %s for a free port)", hostport, by, target.PortPlaceholder)
}
