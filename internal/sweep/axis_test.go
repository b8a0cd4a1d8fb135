package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExpand(t *testing.T) {
	for _, c := range []struct {
		spec string
		kind Kind
		want []string
	}{
		{"0.1,0.25,0.5,1", Float, []string{"0.1", "0.25", "0.5", "1"}},
		{"0.1:1:0.1", Float, []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"}},
		{"0.5:2:0.5", Float, []string{"0.5", "1", "1.5", "2"}},
		{"0.1:0.35:0.1", Float, []string{"0.1", "0.2", "0.3"}}, // stop need not be on a step
		{"1ms:100ms:*2", Duration, []string{"1ms", "2ms", "4ms", "8ms", "16ms", "32ms", "64ms"}},
		{"10ms:50ms:10ms", Duration, []string{"10ms", "20ms", "30ms", "40ms", "50ms"}},
		{"5ms,10ms,100ms", Duration, []string{"5ms", "10ms", "100ms"}},
		{"1:4:1,8,16", Int, []string{"1", "2", "3", "4", "8", "16"}},
		{"1:16:*2", Int, []string{"1", "2", "4", "8", "16"}},
		{"1:10:*1.5", Int, []string{"1", "2", "3", "5", "7"}},
		{"workers,runtime,4", Words, []string{"workers", "runtime", "4"}},
		{"0.3", Float, []string{"0.3"}},
		{" 1 , 2 ", Int, []string{"1", "2"}},
	} {
		got, err := Expand(c.spec, c.kind)
		require.NoError(t, err, c.spec)
		assert.Equal(t, c.want, got, c.spec)
	}
}

func TestExpandRejects(t *testing.T) {
	for _, c := range []struct {
		spec string
		kind Kind
		want string
	}{
		{"", Float, "empty list"},
		{"0.1,,0.2", Float, "empty item"},
		{"abc", Float, `"abc" is not a number`},
		{"1:2", Float, "neither a value nor a range"},
		{"1:2:3:4", Float, "neither a value nor a range"},
		{"1:0.5:0.1", Float, "below start"},
		{"0.1:1:0", Float, "step"},
		{"0.1:1:-0.1", Float, "step"},
		{"1ms:10ms:*1", Duration, "above 1"},
		{"0:10:*2", Int, "start above 0"},
		{"1x:2ms:1ms", Duration, "not a duration"},
		{"1.5", Int, "not a whole number"},
		{"workers:8:1", Words, "only numbers"},
		{"0.001:1000:0.001", Float, "more than 1000"},
	} {
		_, err := Expand(c.spec, c.kind)
		require.Error(t, err, c.spec)
		assert.Contains(t, err.Error(), c.want, c.spec)
	}
}

func TestProduct(t *testing.T) {
	got := Product([]Axis{{"workers", []string{"1", "2"}}, {"cpus", []string{"0.5", "1", "2"}}})
	require.Len(t, got, 6)
	assert.Equal(t, Config{{"workers", "1"}, {"cpus", "0.5"}}, got[0])
	assert.Equal(t, Config{{"workers", "1"}, {"cpus", "1"}}, got[1], "the last axis varies fastest")
	assert.Equal(t, Config{{"workers", "2"}, {"cpus", "2"}}, got[5])
	assert.Equal(t, "2", got[5].Get("workers"))
	assert.Equal(t, "", got[5].Get("period"))
	assert.Equal(t, []Config{{}}, Product(nil), "no axes: one configuration, the defaults")
}

func TestSizeAndAt(t *testing.T) {
	axes := []Axis{{"workers", []string{"1", "2"}}, {"period", []string{"10ms", "100ms", "1s"}}, {"cpus", []string{"0.5", "1"}}}
	n, ok := Size(axes)
	require.True(t, ok)
	all := Product(axes)
	require.Equal(t, len(all), n)
	for i := range all {
		assert.Equal(t, all[i], At(axes, i), "configuration %d", i)
	}

	thousand := make([]string, 1000)
	var huge []Axis
	for range 7 {
		huge = append(huge, Axis{"x", thousand})
	}
	_, ok = Size(huge)
	assert.False(t, ok, "10^21 configurations do not fit an int")
	n, ok = Size(huge[:2])
	assert.True(t, ok)
	assert.Equal(t, 1_000_000, n)
}
