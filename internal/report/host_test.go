package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCPUModel(t *testing.T) {
	assert.Equal(t, "AMD EPYC 7B13", cpuModel([]byte("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n")))
	assert.Equal(t, "", cpuModel([]byte("processor\t: 0\n")))
}
