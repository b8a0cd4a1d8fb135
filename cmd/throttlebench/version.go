package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and commit are what the Makefile's build stamps in (-ldflags -X
// main.version=$(git describe --always --dirty), main.commit); go install
// and go build leave version "dev", and the commit then comes from Go's
// own build info, which Go writes into a binary built in a git checkout
// (unless -buildvcs=false). A test binary has neither.
var version, commit = "dev", ""

// versionLine is the one line `version` and `--version` print.
func versionLine() string {
	info, _ := debug.ReadBuildInfo()
	return describeBuild(version, commit, info)
}

// describeBuild words a build: its version, the commit it was built from
// ("+dirty" with uncommitted changes; "unknown" where nothing says) and
// the Go that built it.
func describeBuild(version, commit string, info *debug.BuildInfo) string {
	goVersion := runtime.Version()
	if info != nil {
		goVersion = info.GoVersion
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			commit = rev
			if modified == "true" {
				commit += "+dirty"
			}
		}
	}
	if commit == "" {
		commit = "unknown"
	}
	return fmt.Sprintf("throttlebench %s (commit %s, %s, %s/%s)", version, commit, goVersion, runtime.GOOS, runtime.GOARCH)
}

func newCmdVersion(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from and the Go that built it",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(f.Stdout, versionLine())
			return err
		},
	}
}
