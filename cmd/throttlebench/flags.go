package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// flagErrRE matches pflag's "invalid argument" error for a value it could
// not parse itself (durations, floats, bools, ints): the flags that are not
// configuration parameters, which config parses itself.
var flagErrRE = regexp.MustCompile(`^invalid argument (".*") for "(?:-\w, )?--([\w-]+)" flag: `)

// flagError turns pflag's parser text ("time: invalid duration") into our
// one line: the flag, the value, what is allowed.
func flagError(err error) error {
	m := flagErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return config.Usagef("", "%v", err)
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
		want = fmt.Sprintf("want a duration between 0 (no limit) and %v, such as 90s or 10m", config.MaxTimeout)
	case "alpha":
		want = "want a number between 0 and 1 (exclusive), such as 0.05"
	case "quiet":
		want = "want true or false"
	default:
		return config.Usagef(flag, "%v", err)
	}
	return config.Usagef(flag, "invalid --%s %q: %s", flag, v, want)
}

// paramValue is a parameter's flag: the text as given, checked by config
// (so that run and sweep word every error the same way), with the type its
// kind suggests in --help.
type paramValue struct {
	s    string
	kind config.Kind
	list bool
}

func (v *paramValue) String() string     { return v.s }
func (v *paramValue) Set(s string) error { v.s = s; return nil }
func (v *paramValue) Type() string {
	t := map[config.Kind]string{config.Int: "int", config.Float: "float", config.Duration: "duration", config.Words: "string", config.Bool: "bool"}[v.kind]
	if v.list {
		return t + "s"
	}
	return t
}

// listFlags names the parameters of command that take lists.
func listFlags(command config.Command) string {
	var names []string
	for _, p := range config.AxesFor(command) {
		names = append(names, "--"+p.Name)
	}
	return strings.Join(names, ", ")
}
