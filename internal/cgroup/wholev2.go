package cgroup

// WholeV2 says whether hier is a whole cgroup v2 hierarchy (not a
// container's part of one): the one place that decides whether systemd
// can hold our scopes here. DriverFacts.V2 and cleanup's look into
// throttlebench.slice both ask it.
func (hier Hierarchy) WholeV2() bool { return hier.Version == 2 && hier.MountRoot == "/" }
