package stats

import (
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
