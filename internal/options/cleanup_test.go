package options

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// Bad input is refused before anything is looked at.
func TestCleanupRefusesBadVersion(t *testing.T) {
	_, err := Cleanup{Version: "3"}.Resolve(cgroup.Host{Root: t.TempDir()})
	assert.ErrorAs(t, err, new(*badinput.Error))
}
