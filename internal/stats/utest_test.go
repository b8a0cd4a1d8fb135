package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUTestMinPAndNeededN(t *testing.T) {
	assert.InDelta(t, 2.0/252, UTestMinP(5, 5), 1e-15)
	assert.InDelta(t, 0.1, UTestMinP(3, 3), 1e-15)
	assert.InDelta(t, 2.0/286, UTestMinP(3, 10), 1e-15)
	assert.InDelta(t, UTestMinP(10, 3), UTestMinP(3, 10), 1e-15)
	assert.Equal(t, 1.0, UTestMinP(0, 5))
	assert.Equal(t, 4, UTestNeededN(0.05)) // 2/C(8,4) = 0.029; 2/C(6,3) = 0.1
	assert.Equal(t, 5, UTestNeededN(0.01)) // 2/C(10,5) = 0.0079; 2/C(8,4) = 0.029
	assert.Equal(t, 3, UTestNeededN(0.2))
}

func TestUTestKnownValues(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		want float64
	}{
		// Hollander & Wolfe (1973), p. 69 (the example of R's wilcox.test):
		// W = 35, one-sided p = 0.1272; two-sided exact p = 764/3003.
		{"textbook", []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
			[]float64{1.15, 0.88, 0.90, 0.74, 1.21}, 764.0 / 3003},
		{"identical samples", []float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 4, 5}, 1},
		{"all values equal", []float64{2, 2, 2}, []float64{2, 2, 2}, 1},
		// Fully separated: only 2 of the C(10,5) = 252 orderings are as extreme.
		{"separated 5+5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252},
		{"separated 5+5 reversed", []float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}, 2.0 / 252},
		{"separated 10+10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []float64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 2.0 / 184756},
		{"separated 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.InDelta(t, c.want, UTest(c.x, c.y), 1e-12)
		})
	}
	assert.True(t, math.IsNaN(UTest(nil, []float64{1})), "an empty sample has no p-value")
}
