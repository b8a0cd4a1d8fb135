package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSweepRejectsInvalidInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--cpus", "0.1:1:0"}, []string{`--cpus "0.1:1:0"`, "step"}},
		{[]string{"--cpus", "0.1,abc"}, []string{`--cpus "0.1,abc"`, `"abc" is not a number`}},
		{[]string{"--cpus", "0,0.5"}, []string{`--cpus "0"`, "above 0"}},
		{[]string{"--period", "1ms:2s:*2"}, []string{`--period "1.024s"`, "1ms and 1s"}},
		{[]string{"--workers", "0:4:1"}, []string{"--workers 0"}},
		{[]string{"--workers", "1,x"}, []string{`--workers "1,x"`, "whole number"}},
		{[]string{"--cost", "3,4"}, []string{"--cost 3"}},
		{[]string{"--gomaxprocs", "all"}, []string{`--gomaxprocs "all"`}},
		{[]string{"--quota", "10ms", "--cpus", "0.5"}, []string{"conflicts"}},
		{[]string{"--format", "xml"}, []string{`--format "xml"`, "csv, markdown, gobench"}},
		{[]string{"--plot", "out.pdf"}, []string{`--plot "out.pdf"`, ".svg or .png"}},
		{[]string{"--plot", "/nonexistent/x.svg"}, []string{"--plot", "does not exist"}},
		{[]string{"--cgroup", "current", "--cpus", "0.5,1"}, []string{"cannot be used with --cgroup current"}},
		{[]string{"--cpus", "0.5,1", "--min-time", "-5s"}, []string{"--min-time -5s", "between 0 (off) and 1h"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"sweep"}, c.args...)...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}
