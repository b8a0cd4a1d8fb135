package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// maxTimeout bounds --timeout: far beyond any run, small enough to stay a
// Duration.
const maxTimeout = 30 * 24 * time.Hour

// flagErrRE matches pflag's "invalid argument" error for a value it could
// not parse itself (durations, floats, bools, ints): the flags that are not
// configuration parameters, which config parses itself.
var flagErrRE = regexp.MustCompile(`^invalid argument (".*") for "(?:-\w, )?--([\w-]+)" flag: `)

// flagError turns pflag's parser text ("time: invalid duration") into our
// one line: the flag, the value, what is allowed.
func flagError(err error) error {
	m := flagErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return usagef("%v", err)
	}
	v, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		v = m[1]
	}
	flag := m[2]
	var want string
	switch flag {
	case "max-configs":
		want = fmt.Sprintf("want a whole number between 1 and %d", sweep.MaxConfigs)
	case "timeout":
		want = fmt.Sprintf("want a duration between 0 (no limit) and %v, such as 90s or 10m", maxTimeout)
	case "alpha":
		want = "want a number between 0 and 1 (exclusive), such as 0.05"
	case "quiet":
		want = "want true or false"
	default:
		return usagef("%v", err)
	}
	return usagef("invalid --%s %q: %s", flag, v, want)
}

func checkChoice(flag, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return usagef("invalid --%s %q: want one of %s", flag, v, strings.Join(allowed, ", "))
	}
	return nil
}

// checkPlot refuses a --plot that names no picture format the charts are
// drawn in, or no place to write one, before the work that would fill it.
func checkPlot(path string) error {
	if path == "" {
		return nil
	}
	if ext := strings.ToLower(path[max(0, strings.LastIndex(path, ".")):]); ext != ".svg" && ext != ".png" {
		return usagef("invalid --plot %q: want a file name ending in .svg or .png", path)
	}
	return checkOutput("plot", path)
}

// checkOutput refuses, before any work is done rather than after a long run,
// an --output (or --plot) that is no place for a result: a device, a
// directory, a missing or unwritable directory, a kernel filesystem.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	if _, err := atomicfile.Target(path); err != nil {
		return usagef("invalid --%s %q: %v", flag, path, err)
	}
	return nil
}
