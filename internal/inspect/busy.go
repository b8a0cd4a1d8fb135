package inspect

import (
	"context"
	"time"

	"github.com/throttlebench/throttlebench/internal/host"
)

// SampleBusy reads how busy the whole machine is: /proc/stat below root
// twice, window apart. inspect itself sleeps in between.
func SampleBusy(root string, window time.Duration) func(context.Context) (Busy, error) {
	return func(ctx context.Context) (Busy, error) {
		before, err := host.ReadStat(root)
		if err != nil {
			return Busy{}, err
		}
		start := time.Now()
		select {
		case <-ctx.Done():
			return Busy{}, context.Cause(ctx)
		case <-time.After(window):
		}
		after, err := host.ReadStat(root)
		if err != nil {
			return Busy{}, err
		}
		wall := time.Since(start)
		busy, ok := host.Busy(before, after, wall)
		if !ok {
			return Busy{}, errNotComparable
		}
		return Busy{CPUs: float64(busy) / float64(wall), Window: wall}, nil
	}
}
