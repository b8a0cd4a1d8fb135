package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/httpload"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/stderrtail"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/target"
)

// request checks --method, --header and --body, reading the body once.
func (t *targetFlags) request(c *httpload.Config) error {
	if t.method == "" || !isToken(t.method) {
		return config.Usagef("method", "invalid --method %q: want an HTTP method such as GET or POST", t.method)
	}
	c.Header = http.Header{}
	for _, h := range t.headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !isToken(name) || strings.ContainsAny(value, "\r\n\x00") {
			return config.Usagef("header", `invalid --header %q: want "Name: value"`, h)
		}
		c.Header.Add(name, value)
	}
	if t.body != "" {
		b, err := os.ReadFile(t.body)
		if err != nil {
			return config.Usagef("body", "invalid --body %q: %v", t.body, config.PathCause(err))
		}
		c.Body = b
	}
	return nil
}

// serveCommand takes --serve's command, after --; the server always gets
// a slice of its own.
func (t *targetFlags) serveCommand(cmd *cobra.Command, args []string, run *runFlags, tgt *target.Target) error {
	if len(args) == 0 || cmd.ArgsLenAtDash() != 0 {
		return config.Usagef("serve", "--serve needs the server's command after --: throttlebench latency --target URL --serve -- CMD [ARGS...]")
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return config.Usagef("serve", "invalid --serve command %q: %v", args[0], errors.Unwrap(err))
	}
	if t.serveReady <= 0 {
		return config.Usagef("serve-ready", "invalid --serve-ready %v: want more than 0", t.serveReady)
	}
	switch run.mode {
	case runner.ModeAuto, runner.ModeCreate:
	default:
		return config.Usagef("cgroup", "--cgroup %q cannot be used with --serve: the server runs in a slice created for it (--cgroup create, the default)", run.mode)
	}
	if err := t.servePort(args); err != nil {
		return err
	}
	run.mode = runner.ModeCreate
	tgt.Serve = args
	return nil
}

// namedCgroup resolves --cgroup PATH, the cgroup a running server is in,
// as sample --cgroup does (a directory, a cgroup path or a pid), to the
// cpu hierarchy's (counters, tracer) and where its usage is counted.
func (t *targetFlags) namedCgroup(run *runFlags, tgt *target.Target) error {
	spec := run.mode
	switch spec {
	case runner.ModeAuto:
		return nil
	case runner.ModeCreate, runner.ModeCurrent:
		return config.Usagef("cgroup", "--cgroup %s cannot be used with --target without --serve: name the cgroup the server runs in (a directory, a cgroup path or a pid), or leave it out", spec)
	}
	h := cgroup.Host{Root: "/"}
	var counted cgroup.Cgroup
	var err error
	if pid, perr := parsePid(spec); perr == nil {
		counted, err = h.UsageCgroupOfPID(pid)
	} else {
		counted, err = h.UsageCgroup(spec)
	}
	if err != nil {
		return config.Usagef("cgroup", "invalid --cgroup %q: %v", spec, err)
	}
	version, err := config.CgroupVersion(run.version)
	if err != nil {
		return err
	}
	hier, err := h.CPUHierarchy(version)
	if err != nil {
		return config.Usagef("cgroup", "invalid --cgroup %q: no cpu hierarchy: %v", spec, err)
	}
	cg, err := hier.At(counted.Path)
	if err == nil {
		_, err = os.Stat(cg.Dir)
	}
	if err != nil {
		return config.Usagef("cgroup", "invalid --cgroup %q: its cgroup %s has no cpu cgroup: %v", spec, counted.Path, err)
	}
	tgt.Cgroup, tgt.Counted, tgt.Named = cg, counted, spec
	return nil
}

func parsePid(s string) (int, error) {
	var pid int
	if _, err := fmt.Sscanf(s, "%d", &pid); err != nil || pid <= 0 || fmt.Sprint(pid) != s {
		return 0, errors.New("not a pid")
	}
	return pid, nil
}

// isToken is RFC 9110's token: a method or a header's name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c > 0x7e || c <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c) {
			return false
		}
	}
	return true
}

// serverExited fails a run whose --serve server exited on its own during
// a configuration: its result is written, its requests counted, and the
// exit status says the measurement is not the server's; the error ends
// with the server's last lines on stderr.
func serverExited(rows []latency.Row) error {
	for _, r := range rows {
		if r.Report != nil && r.Report.TargetResult != nil && r.Report.ServerExited != "" {
			msg := fmt.Sprintf("the server exited during the run (%s)", r.Report.ServerExited)
			if d := sweep.Describe(r.Config); d != "" && len(rows) > 1 {
				msg = fmt.Sprintf("the server exited during the run of %s (%s)", d, r.Report.ServerExited)
			}
			return errors.New(stderrtail.Append(msg, strings.Join(r.Report.ServerStderr, "\n")))
		}
	}
	return nil
}
