//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The instances run of the soak: three requests at once, each to an
// instance of its own in a slice of its own, 5 ms of CPU and 100 ms of
// wait each, after a cold start of 5 ms of CPU; about half a second in
// all on a host.
func instancesRun(parent string) []string {
	return []string{"latency", "--cgroup", "create", "--parent", parent, "--cpus", "0.5", "--period", "10ms",
		"--instances", "per-request", "--arrivals", "once", "--count", "3", "--work", "5ms", "--wait", "100ms", "--init", "5ms"}
}

// instancesInterrupted sends SIGINT to a run on instances at a random
// moment of its wall time (measured by a first run to its end): before
// any slice exists, while instances start, while they serve, as they
// retire, or after the exit. Every slice and instance must be gone after,
// with exit 130, or with exit 0 and a complete result.
func (s *soak) instancesInterrupted(tr *trial) {
	if s.instWall == 0 {
		began := time.Now()
		o := runCmd(tr.t, taggedCmd(tr.tag, instancesRun(tr.parent)...))
		if o.code != 0 {
			tr.fail("the timing run failed: %s", o.stderr)
			return
		}
		s.instWall = time.Since(began)
		tr.t.Logf("soak: a run on instances takes %v", s.instWall.Round(time.Millisecond))
	}
	out := tr.out("instances.json")
	p := tr.start(append(instancesRun(tr.parent), "-o", out)...)
	delay := between(tr.rng, 0, s.instWall+20*time.Millisecond)
	occupied := map[string]bool{}
	for time.Since(p.started) < delay && !p.exited() {
		for _, d := range subdirs(tr.t, tr.parent) {
			if len(procsIn(d)) > 0 {
				occupied[d] = true
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	live := 0
	for _, d := range subdirs(tr.t, tr.parent) {
		if len(procsIn(d)) > 0 {
			live++
		}
	}
	switch {
	case p.exited():
		tr.moment = "after exit"
	case len(occupied) == 0 && live == 0:
		tr.moment = "before instances"
	case live == 3:
		tr.moment = "3 instances alive"
	case live > 0:
		tr.moment = "some instances alive"
	default:
		tr.moment = "tear-down/output"
	}
	tr.note("%v after exec", delay.Round(100*time.Microsecond))
	p.cmd.Process.Signal(syscall.SIGINT)
	tr.wait(p)
	tr.outcome = p.exit()
	switch tr.outcome {
	case "exit 130":
		if want := "interrupted by SIGINT; nothing left behind"; !strings.Contains(p.stderr.String(), want) {
			tr.fail("no %q on stderr: %s", want, p.stderr.String())
		}
	case "exit 0":
		data, err := os.ReadFile(out)
		var r struct {
			Completed        int `json:"completed"`
			InstancesStarted int `json:"instances_started"`
		}
		if err != nil || json.Unmarshal(data, &r) != nil || r.Completed != 3 || r.InstancesStarted != 3 {
			tr.rejected[filepath.Base(out)] = "not a complete result"
			tr.fail("exit 0 without a complete result: %v", err)
			return
		}
		tr.kept[filepath.Base(out)] = true
	case "killed by SIGINT":
		tr.outcome += " (before its handler)"
		if _, err := os.Stat(out); err == nil || p.stderr.Len() > 0 {
			tr.fail("killed by the signal in the middle of its work: %s", p.stderr.String())
		}
	default:
		tr.fail("%s: %s", tr.outcome, p.stderr.String())
	}
}
