//go:build linux

package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The floor benchmark's readers of its peers' output, on output as the
// tools print it.

func TestParseCyclictest(t *testing.T) {
	out := []byte("# /dev/cpu_dma_latency set to 0us\n# Histogram\n000000 000000\n000001 000002\n000002 000007\n000003 000000\n" +
		"# Total: 000000010\n# Min Latencies: 00001\n# Histogram Overflows: 00001\n# Thread 0:\n")
	h, err := parseCyclictest(out)
	require.NoError(t, err)
	assert.EqualValues(t, 10, h.TotalCount())
	assert.InEpsilon(t, 2*time.Microsecond, time.Duration(h.ValueAtQuantile(50)), 0.001)
	assert.InEpsilon(t, 4*time.Microsecond, time.Duration(h.Max()), 0.001, "an overflow sits past the last bucket")

	_, err = parseCyclictest([]byte("# Histogram\n# Total: 0\n"))
	assert.Error(t, err)
	_, err = parseCyclictest([]byte("000001 x\n"))
	assert.Error(t, err)
}

func TestParseSchbench(t *testing.T) {
	block := func(req string) string {
		return "Wakeup Latencies percentiles (usec) runtime 10 (s) (2001 total samples)\n" +
			"\t  50.0th: 5          (100 samples)\n\t* 99.0th: 15         (20 samples)\n\t  99.9th: 27         (2 samples)\n\t  min=1, max=50\n" +
			"Request Latencies percentiles (usec) runtime 10 (s) (2000 total samples)\n" + req +
			"RPS percentiles (requests) runtime 10 (s) (11 total samples)\n\t* 50.0th: 200        (11 samples)\n"
	}
	out := block("\t  50.0th: 100        (1000 samples)\n\t  90.0th: 150\n\t* 99.0th: 200        (20 samples)\n\t  99.9th: 300        (2 samples)\n\t  min=50, max=400\n") +
		"current rps: 200.00\n" +
		block("\t  50.0th: 175        (1000 samples)\n\t  90.0th: 190\n\t* 99.0th: 211        (20 samples)\n\t  99.9th: 233        (2 samples)\n\t  min=50, max=400\n")
	p, err := parseSchbench([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, schbenchPercentiles{n: 2000, p50: 175, p99: 211, p999: 233}, p, "the last block, the request latencies")

	_, err = parseSchbench([]byte("usage: schbench\n"))
	assert.Error(t, err)
}
