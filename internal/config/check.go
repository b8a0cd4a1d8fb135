package config

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/table"
)

// The checks of the flags that are not parameters of a configuration (a
// format, where the output goes, how long to wait), which every command
// shares: they give the same Error as a parameter's, so that bad input of
// any kind exits 2 with one line naming the flag, the value and what is
// allowed.

// MaxTimeout bounds --timeout: far beyond any run, small enough to stay a
// Duration.
const MaxTimeout = 30 * 24 * time.Hour

// CgroupVersions are what --cgroup-version accepts.
var CgroupVersions = []string{"auto", "1", "2"}

// Timeout checks --timeout: 0 is no limit.
func Timeout(d time.Duration) error {
	if d < 0 || d > MaxTimeout {
		return badinput.Errorf("timeout", "invalid --timeout %v: want a duration between 0 (no limit) and %v", d, MaxTimeout)
	}
	return nil
}

// InCurrent refuses what --cgroup current cannot apply, as it measures the
// limits already in place: a limit or a cpuset among the parameters given
// (by name), a --parent.
func InCurrent(given map[string]string, parentGiven bool, parent string) error {
	for _, p := range Params {
		if v, ok := given[p.Name]; ok && p.Limit {
			return badinput.Errorf(p.Name, "--%s %q cannot be used with --cgroup current: it measures the limits already in place", p.Name, v)
		}
	}
	if parentGiven {
		return badinput.Errorf("parent", "--parent %q cannot be used with --cgroup current: it measures the limits already in place", parent)
	}
	return nil
}

// CgroupVersion reads --cgroup-version: 1, 2, or 0 for auto.
func CgroupVersion(v string) (int, error) {
	if err := badinput.Choice("cgroup-version", v, CgroupVersions); err != nil {
		return 0, err
	}
	n, _ := strconv.Atoi(v) // "auto" → 0
	return n, nil
}

// TableFormats are the formats --columns applies to: the tables.
var TableFormats = []string{"text", "csv", "markdown"}

// Columns reads --columns for a table of format whose columns are
// allowed: "" fits a text table to its width (table.Fit), "all" shows
// every column, and a comma-separated list shows those. A name not among
// allowed, a list with nothing in it, or --columns with a format that is no
// table is refused.
func Columns(v, format string, allowed []string) (table.Columns, error) {
	if v == "" {
		return table.Columns{}, nil
	}
	if !slices.Contains(TableFormats, format) {
		return table.Columns{}, badinput.Errorf("columns", "--columns %q applies to the tables (--format %s), not --format %s", v, strings.Join(TableFormats, ", "), format)
	}
	if strings.TrimSpace(v) == "all" {
		return table.Columns{All: true}, nil
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(allowed, n) {
			return table.Columns{}, badinput.Errorf("columns", "invalid --columns %q: %q is no column here; want all, or a list of %s", v, n, strings.Join(allowed, ", "))
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return table.Columns{Names: names}, nil
}
