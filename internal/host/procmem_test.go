package host

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMemory(t *testing.T) {
	m, err := parseMemory([]byte("Name:\tthrottlebench\nVmPeak:\t 1241776 kB\nVmHWM:\t   81212 kB\nVmRSS:\t   80120 kB\nThreads:\t5\n"))
	require.NoError(t, err)
	assert.Equal(t, Memory{RSS: 80120 << 10, Peak: 81212 << 10}, m)

	for _, bad := range []string{
		"Name:\tzombie\nState:\tZ (zombie)\n",
		"VmHWM:\t 12 kB\n",
		"VmHWM:\t 12 MB\nVmRSS:\t 1 kB\n",
		"VmHWM:\t -1 kB\nVmRSS:\t 1 kB\n",
		"VmHWM:\t x kB\nVmRSS:\t 1 kB\n",
	} {
		_, err := parseMemory([]byte(bad))
		assert.ErrorIs(t, err, ErrParse, bad)
	}
}

func TestProcMemoryOfThisProcess(t *testing.T) {
	m, err := ProcMemory(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	assert.Positive(t, m.RSS)
	assert.GreaterOrEqual(t, m.Peak, m.RSS)
}
