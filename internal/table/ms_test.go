package table

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMs(t *testing.T) {
	for v, want := range map[float64]string{
		45.1: "45.10ms", 450.12: "450.1ms", 4.5: "4.500ms", 1234.5: "1.235s", 12345: "12.35s",
		0.85: "850.0µs", 0: "0.000ms", 999.96: "1.000s", 0.99996: "1.000ms", 12345678: "12350s",
	} {
		assert.Equal(t, want, Ms(v), "%v", v)
	}
}

// The run summary's spelling changes unit at 1 ms and 10 s, not at 1 s.
func TestMsSpaced(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0.0 µs", 0.85: "850.0 µs", 1: "1.00 ms", 99.99: "99.99 ms", 100: "100.0 ms",
		1234.5: "1234.5 ms", 9999.99: "10000.0 ms", 10000: "10.00 s", -5: "-5000.0 µs",
	} {
		assert.Equal(t, want, MsSpaced(v), "%v", v)
	}
}
