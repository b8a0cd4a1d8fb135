package options

import (
	"errors"
	"net/http"
	"os"
	"os/exec"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cgroupref"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/httpload"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/target"
)

// request checks --method, --header and --body, reading the body once.
func (t *Target) request(c *runspec.Request) error {
	if !httpload.IsToken(t.Method) {
		return badinput.Errorf("method", "invalid --method %q: want an HTTP method such as GET or POST", t.Method)
	}
	header := http.Header{}
	for _, h := range t.Headers {
		name, value, ok := httpload.ParseHeader(h)
		if !ok {
			return badinput.Errorf("header", `invalid --header %q: want "Name: value"`, h)
		}
		header.Add(name, value)
	}
	c.Header = header
	if t.Body != "" {
		b, err := os.ReadFile(t.Body)
		if err != nil {
			return badinput.Errorf("body", "invalid --body %q: %v", t.Body, badinput.PathCause(err))
		}
		c.Body = b
	}
	return nil
}

// serveCommand takes --serve's command, after --; the server always gets
// a slice of its own, so the mode it gives back is ModeCreate.
func (t *Target) serveCommand(args []string, dash int, mode string, tgt *target.Target) (string, error) {
	if len(args) == 0 || dash != 0 {
		return "", badinput.Errorf("serve", "--serve needs the server's command after --: throttlebench latency --target URL --serve -- CMD [ARGS...]")
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return "", badinput.Errorf("serve", "invalid --serve command %q: %v", args[0], errors.Unwrap(err))
	}
	if t.ServeReady <= 0 {
		return "", badinput.Errorf("serve-ready", "invalid --serve-ready %v: want more than 0", t.ServeReady)
	}
	switch mode {
	case runner.ModeAuto, runner.ModeCreate:
	default:
		return "", badinput.Errorf("cgroup", "--cgroup %q cannot be used with --serve: the server runs in a slice created for it (--cgroup create, the default)", mode)
	}
	if err := t.servePort(args); err != nil {
		return "", err
	}
	tgt.Serve = args
	return runner.ModeCreate, nil
}

// namedCgroup resolves --cgroup PATH, the cgroup a running server is in,
// as sample --cgroup does (a directory, a cgroup path or a pid), to the
// cpu hierarchy's (counters, tracer) and where its usage is counted.
func namedCgroup(run TargetRun, tgt *target.Target) error {
	spec := run.Mode
	switch spec {
	case runner.ModeAuto:
		return nil
	case runner.ModeCreate, runner.ModeCurrent:
		return badinput.Errorf("cgroup", "--cgroup %s cannot be used with --target without --serve: name the cgroup the server runs in (a directory, a cgroup path or a pid), or leave it out", spec)
	}
	h := cgroup.Host{Root: "/"}
	counted, err := cgroupref.Counted(h, spec)
	if err != nil {
		return badinput.Errorf("cgroup", "invalid --cgroup %q: %v", spec, err)
	}
	version, err := config.CgroupVersion(run.Version)
	if err != nil {
		return err
	}
	cg, err := cgroupref.CPU(h, version, counted.Path)
	if nh := (*cgroupref.NoHierarchy)(nil); errors.As(err, &nh) {
		return badinput.Errorf("cgroup", "invalid --cgroup %q: no cpu hierarchy: %v", spec, nh.Err)
	}
	if err == nil {
		_, err = os.Stat(cg.Dir)
	}
	if err != nil {
		return badinput.Errorf("cgroup", "invalid --cgroup %q: its cgroup %s has no cpu cgroup: %v", spec, counted.Path, err)
	}
	tgt.Cgroup, tgt.Counted, tgt.Named = cg, counted, spec
	return nil
}
