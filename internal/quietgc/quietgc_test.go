package quietgc

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// While quiet, allocation under the headroom runs no collection; restore
// puts the settings back as they were.
func TestStart(t *testing.T) {
	pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(pct); debug.SetMemoryLimit(limit) }()

	restore := Start()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var keep [][]byte
	for range 64 {
		keep = append(keep, make([]byte, 1<<20)) // 64 MiB, under Headroom
	}
	runtime.ReadMemStats(&after)
	assert.Equal(t, before.NumGC, after.NumGC, "no collection while quiet")
	restore()
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC back")
	assert.Equal(t, limit, debug.SetMemoryLimit(-1), "the memory limit back")
	runtime.KeepAlive(keep)
}
