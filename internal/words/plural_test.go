package words

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlural(t *testing.T) {
	assert.Equal(t, "1 configuration", N(1, "configuration"))
	assert.Equal(t, "0 configurations", N(0, "configuration"))
	assert.Equal(t, "2 Jobs", N(2, "Job"))
	assert.Equal(t, "3 processes", N(3, "process"))
	assert.Equal(t, "2 directories", N(2, "directory"))
	assert.Equal(t, "1 CPU", F(1, "CPU"))
	assert.Equal(t, "0.5 CPUs", F(0.5, "CPU"))
	assert.Equal(t, "2.5 CPUs", F(2.5, "CPU"))
	assert.Equal(t, "workers", Noun(2, "worker"))
}
