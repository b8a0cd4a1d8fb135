package tracer

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestObjectFresh fails when throttle.bpf.c changed after the committed
// objects were generated: go generate records the source's hash beside them
// (git keeps no mtimes to compare).
func TestObjectFresh(t *testing.T) {
	src, err := os.ReadFile("throttle.bpf.c")
	require.NoError(t, err)
	recorded, err := os.ReadFile("throttle.bpf.c.sha256")
	require.NoError(t, err, "no record of the source the objects were built from: run make generate")
	f := strings.Fields(string(recorded))
	require.Len(t, f, 2, "throttle.bpf.c.sha256: want 'HASH  throttle.bpf.c'")
	sum := sha256.Sum256(src)
	require.Equal(t, f[0], hex.EncodeToString(sum[:]),
		"throttle.bpf.c changed since its objects were generated: run make generate and commit the result")
	for _, o := range []string{"throttle_bpfel.o", "throttle_bpfeb.o", "throttle_bpfel.go", "throttle_bpfeb.go"} {
		_, err := os.Stat(o)
		require.NoError(t, err, "generated file missing: run make generate")
	}
}
