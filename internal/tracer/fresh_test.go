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
	fresh(t, "throttle.bpf.c", "throttle")
	fresh(t, "ringbench/ringbench.bpf.c", "ringbench/ringbench")
}

// fresh checks the objects generated from src, named stem_bpf{el,eb}.
func fresh(t *testing.T, src, stem string) {
	code, err := os.ReadFile(src)
	require.NoError(t, err)
	recorded, err := os.ReadFile(src + ".sha256")
	require.NoError(t, err, "no record of the source the objects were built from: run make generate")
	f := strings.Fields(string(recorded))
	require.Len(t, f, 2, "%s.sha256: want 'HASH  NAME'", src)
	sum := sha256.Sum256(code)
	require.Equal(t, f[0], hex.EncodeToString(sum[:]),
		"%s changed since its objects were generated: run make generate and commit the result", src)
	for _, suffix := range []string{"_bpfel.o", "_bpfeb.o", "_bpfel.go", "_bpfeb.go"} {
		_, err := os.Stat(stem + suffix)
		require.NoError(t, err, "generated file missing: run make generate")
	}
}
