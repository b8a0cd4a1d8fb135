package httpload_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/throttlebench/throttlebench/internal/httpload"
)

func TestIsToken(t *testing.T) {
	for _, s := range []string{"GET", "POST", "X-Custom", "PROPFIND", "a!#$%&'*+-.^_`|~9"} {
		assert.True(t, httpload.IsToken(s), s)
	}
	for _, s := range []string{"", "GE T", "GET\r\n", "a:b", "a/b", "é", "{x}", "\"q\""} {
		assert.False(t, httpload.IsToken(s), "%q", s)
	}
}

func TestParseHeader(t *testing.T) {
	name, value, ok := httpload.ParseHeader("  X-Id :  42 ")
	assert.True(t, ok)
	assert.Equal(t, "X-Id", name)
	assert.Equal(t, "42", value)
	_, value, ok = httpload.ParseHeader("X-Empty:")
	assert.True(t, ok)
	assert.Empty(t, value)
	for _, h := range []string{"no colon", ": v", "Bad Name: v", "X: a\r\nY: b", "X: a\x00"} {
		_, _, ok := httpload.ParseHeader(h)
		assert.False(t, ok, "%q", h)
	}
}
