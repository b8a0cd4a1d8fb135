package cgroup

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Scopes only where the cpu hierarchy is v2 and whole: never on v1, never
// inside a container that sees a part of the host's hierarchy.
func TestWholeV2(t *testing.T) {
	assert.True(t, Hierarchy{Version: 2, MountRoot: "/"}.WholeV2())
	assert.False(t, Hierarchy{Version: 1, MountRoot: "/"}.WholeV2())
	assert.False(t, Hierarchy{Version: 2, MountRoot: "/docker/abc"}.WholeV2())
}
