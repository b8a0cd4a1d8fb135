package usage

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

// A sample of the host's top cgroup says what it counted, however it was
// named, and how to sample one service instead.
func TestWholeMachineWarning(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Cgroup: "/"}, "cgroup / is the whole machine: every process's CPU is counted"},
		{Options{PID: 1234, PIDGiven: "1234"}, "process 1234 is in cgroup /, the whole machine: every process's CPU is counted"},
		{Options{}, "this process is in cgroup /, the whole machine: every process's CPU is counted"},
	} {
		w := tc.o.WholeMachine(true)
		require.Len(t, w, 1)
		assert.Equal(t, report.KindWholeMachine, w[0].Kind)
		assert.Contains(t, w[0].Text, tc.want)
		assert.Contains(t, w[0].Text, "to sample one service, give it a cgroup of its own")
	}
	assert.Nil(t, Options{Cgroup: "/job"}.WholeMachine(false))

	// The result carries it, and its text shows it.
	f := Build(Recording{Trace: spike}, Meta{Target: 0.01, Warnings: Options{Cgroup: "/"}.WholeMachine(true)})
	require.Len(t, f.Warnings, 1)
	var text bytes.Buffer
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "\nwarning: cgroup / is the whole machine: ")
}
