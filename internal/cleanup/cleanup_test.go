package cleanup

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// The lines come in the order the work was done: the parent's, then the
// scopes'; "nothing to remove" only when nothing was found and nothing
// failed.
func TestResultWrite(t *testing.T) {
	r := Result{
		Parent: Part{Removed: []string{"/p/tb-1-2-a"}, Skipped: []cgroup.Skipped{{Dir: "/p/tb-3-4-b", Reason: "holds processes"}}},
		Scopes: &Part{Removed: []string{"/s/x.scope/tb-5"}, Stopped: []string{"x.scope"}, Skipped: []cgroup.Skipped{{Dir: "/s/y.scope", Reason: "a process lives in it"}}},
	}
	var b bytes.Buffer
	r.Write(&b, false)
	assert.Equal(t, "removed /p/tb-1-2-a\nleft /p/tb-3-4-b: holds processes\nremoved /s/x.scope/tb-5\nstopped x.scope\nleft /s/y.scope: a process lives in it\n", b.String())

	b.Reset()
	Result{Where: "/p nor in /s", Scopes: &Part{}}.Write(&b, false)
	assert.Equal(t, "nothing to remove under /p nor in /s\n", b.String())
	b.Reset()
	Result{Where: "/p"}.Write(&b, true)
	assert.Empty(t, b.String(), "a failure is the error's to say")
}
