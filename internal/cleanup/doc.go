// Package cleanup is the cleanup command's work: the slices left by runs
// whose process no longer lives (tb-<pid>-<start>-<random>), under the
// parent and its v1 twins (cgroup.Host.Tidy), and, where systemd can hold
// our scopes (no --parent, a whole cgroup v2 hierarchy:
// cgroup.Hierarchy.WholeV2), the scopes of such runs in
// throttlebench.slice (cgroup.Host.CleanScopes).
//
// It never kills anything and never removes what throttlebench did not
// create; what it leaves it lists with the reason. It returns what it did
// as data (Result); the command writes it.
package cleanup
