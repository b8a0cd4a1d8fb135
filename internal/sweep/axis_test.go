package sweep

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExpand(t *testing.T) {
	for _, c := range []struct {
		spec  string
		kind  Kind
		want  []string
		words []string
	}{
		{"0.1,0.25,0.5,1", Float, []string{"0.1", "0.25", "0.5", "1"}, nil},
		{"0.1:1:0.1", Float, []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"}, nil},
		{"0.5:2:0.5", Float, []string{"0.5", "1", "1.5", "2"}, nil},
		{"0.1:0.35:0.1", Float, []string{"0.1", "0.2", "0.3"}, nil}, // stop need not be on a step
		{"1ms:100ms:*2", Duration, []string{"1ms", "2ms", "4ms", "8ms", "16ms", "32ms", "64ms"}, nil},
		{"10ms:50ms:10ms", Duration, []string{"10ms", "20ms", "30ms", "40ms", "50ms"}, nil},
		{"5ms,10ms,100ms", Duration, []string{"5ms", "10ms", "100ms"}, nil},
		{"1:4:1,8,16", Int, []string{"1", "2", "3", "4", "8", "16"}, nil},
		{"1:16:*2", Int, []string{"1", "2", "4", "8", "16"}, nil},
		{"1:10:*1.5", Int, []string{"1", "2", "3", "5", "7"}, nil},
		{"workers,runtime,4", Words, []string{"workers", "runtime", "4"}, []string{"workers", "runtime"}},
		{"max,5ms:15ms:5ms", Duration, []string{"max", "5ms", "10ms", "15ms"}, []string{"max"}},
		{"0.3", Float, []string{"0.3"}, nil},
		{" 1 , 2 ", Int, []string{"1", "2"}, nil},
	} {
		got, err := Expand(c.spec, c.kind, c.words...)
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
		{"runtime", Words, "not a whole number"}, // a word only where its parameter declares it
		{"0.001:1000:0.001", Float, "more than 1000"},
	} {
		_, err := Expand(c.spec, c.kind, "workers")
		require.Error(t, err, c.spec)
		assert.Contains(t, err.Error(), c.want, c.spec)
	}
	// A word the parameter takes is named beside the number it is not.
	_, err := Expand("0.5,MAX", Float, "max")
	assert.EqualError(t, err, `"MAX" is not a number, nor max`)
	_, err = Expand("MAX", Duration, "max")
	assert.EqualError(t, err, `"MAX" is not a duration such as 10ms, nor max`)
}

// Found by FuzzExpand's properties, seeded near the ends of each kind: single
// values went through a float64 and came back as other values (+Inf, the
// most negative int64, a neighbour above 2^53), and a range whose step is
// below the float spacing at its start looped for ever.
func TestExpandExtremes(t *testing.T) {
	for _, c := range []struct {
		spec string
		kind Kind
		want []string
	}{
		{"9223372036854775807", Int, []string{"9223372036854775807"}},
		{"9007199254740993", Words, []string{"9007199254740993"}},
		{"2562047h47m16.854775807s", Duration, []string{"2562047h47m16.854775807s"}},
		{"1e-12", Float, []string{"0.000000000001"}},
		{"1e17:1e17:1", Float, []string{"100000000000000000"}},
		{"9007199254740990:9007199254740992:1", Int, []string{"9007199254740990", "9007199254740991", "9007199254740992"}},
	} {
		got, err := Expand(c.spec, c.kind)
		require.NoError(t, err, c.spec)
		assert.Equal(t, c.want, got, c.spec)
	}

	got, err := Expand("1e300", Float)
	require.NoError(t, err)
	require.Len(t, got, 1)
	f, err := strconv.ParseFloat(got[0], 64)
	require.NoError(t, err, "was +Inf")
	assert.Equal(t, 1e300, f)

	done := make(chan []string, 1)
	go func() { vs, _ := Expand("1e300:1e300:1", Float); done <- vs }()
	select {
	case vs := <-done:
		assert.Len(t, vs, 1, "a step below the float spacing gives the start once")
	case <-time.After(5 * time.Second):
		panic("Expand(1e300:1e300:1) loops") // a runaway Expand goes on allocating: stop the binary
	}

	for _, c := range []struct {
		spec string
		kind Kind
		want string
	}{
		{"9007199254740994:9007199254740994:1", Int, `range "9007199254740994:9007199254740994:1": its ends must lie within ±9007199254740992`},
		{"1ms:2562047h:1h", Duration, "its ends must lie within ±2501h59m59.254740992s"},
	} {
		_, err := Expand(c.spec, c.kind)
		assert.ErrorContains(t, err, c.want, c.spec)
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

// A word ending in ':' stands for every item it begins: --instances'
// pool:N, whose number its parameter checks.
func TestExpandPrefixWords(t *testing.T) {
	words := []string{"per-request", "shared", "pool:"}
	got, err := Expand("per-request, shared,pool:4,pool:x", Words, words...)
	require.NoError(t, err)
	assert.Equal(t, []string{"per-request", "shared", "pool:4", "pool:x"}, got)
	_, err = Expand("pool:1:4:1", Words, "workers")
	assert.Error(t, err, "a prefix word only where declared")
}
