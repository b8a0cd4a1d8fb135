package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// flagErrRE matches pflag's "invalid argument" error for a value it could
// not parse itself (durations, floats, bools, ints): the flags that are not
// configuration parameters, which config parses itself.
var flagErrRE = regexp.MustCompile(`^invalid argument (".*") for "(?:-\w, )?--([\w-]+)" flag: `)

// unknownFlagRE matches pflag's error for a long flag cmd does not have.
var unknownFlagRE = regexp.MustCompile(`^unknown flag: --([^\s=]+)`)

// flagError turns pflag's parser text ("time: invalid duration") into our
// one line: the flag, the value, what is allowed; an unknown flag gets the
// nearest of cmd's own, as cobra suggests a mistyped command.
func flagError(cmd *cobra.Command, err error) error {
	if m := unknownFlagRE.FindStringSubmatch(err.Error()); m != nil {
		if near := nearestFlag(cmd, m[1]); near != "" {
			return badinput.Errorf(m[1], "%v; did you mean --%s?", err, near)
		}
		return badinput.Errorf(m[1], "%v (%s --help lists the flags)", err, cmd.CommandPath())
	}
	m := flagErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return badinput.Errorf("", "%v", err)
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
		return badinput.Errorf(flag, "%v", err)
	}
	return badinput.Errorf(flag, "invalid --%s %q: %s", flag, v, want)
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

// nearestFlag is the flag of cmd (its own and inherited) closest to name:
// one that name is a prefix of or that begins name (--cpu for --cpus and
// --cpuset: the fewer edits win), else the nearest within two edits
// (--bursts, --peroid); "" when none is that close or two are equally so.
func nearestFlag(cmd *cobra.Command, name string) string {
	type score struct{ rank, edits int }
	best, bestS, tie := "", score{3, 0}, false
	consider := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		s := score{editDistance(name, f.Name), 0}
		s.edits = s.rank
		if strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name) {
			s.rank = 1
		}
		switch {
		case s.rank < bestS.rank || (s.rank == bestS.rank && s.edits < bestS.edits):
			best, bestS, tie = f.Name, s, false
		case s == bestS && f.Name != best:
			tie = true
		}
	}
	cmd.Flags().VisitAll(consider)
	cmd.InheritedFlags().VisitAll(consider)
	if tie || len(name) < 2 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, with a swap of
// two neighbours counted as one edit (optimal string alignment): --peroid
// is one from --period. Flag names are short and ASCII; no library of ours
// has this exported (cobra keeps its own for commands unexported).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// defaultOnce leaves out pflag's "(default …)" where a flag's help words
// its own default ("1 MiB"): pflag would print the raw one after it again
// ("(default 1048576)").
func defaultOnce(f *pflag.FlagSet, name string) {
	if fl := f.Lookup(name); fl != nil && strings.Contains(fl.Usage, "(default ") {
		fl.DefValue = ""
	}
}
