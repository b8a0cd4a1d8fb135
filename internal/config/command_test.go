package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command runs once per iteration, as one process: the loop's knobs and
// the other workloads' flags are refused with it, its own without it, and
// GOMAXPROCS is left to its environment unless given.
func TestCommandConfig(t *testing.T) {
	cmd := map[string]string{"workload": "command", "command": `["python3","-c","pass"]`}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range cmd {
			m[a] = b
		}
		return m
	}
	c, err := Resolve(cmd)
	require.NoError(t, err)
	assert.Equal(t, 1, c.Batch)
	assert.Equal(t, 1, c.Workers)
	assert.Equal(t, "runtime", c.GOMAXPROCS)
	assert.Equal(t, `["python3","-c","pass"]`, string(mustRaw(t, c, "command")))
	for flag, v := range map[string]string{"batch": "2", "workers": "2", "cost": "5", "units": "9", "sleep": "1ms", "pin": "true"} {
		_, err := Resolve(with(flag, v))
		require.Error(t, err, flag)
		assert.Contains(t, err.Error(), "--"+flag+" is not for a command", flag)
	}
	_, err = Resolve(map[string]string{"prepare": "make clean"})
	assert.ErrorContains(t, err, "--prepare is for a command, given after --")
	_, err = Resolve(map[string]string{"workload": "command"})
	assert.EqualError(t, err, "--workload command takes the command after --: throttlebench run [flags] -- CMD [ARGS...]")

	c, err = Resolve(with("gomaxprocs", "ceil"))
	require.NoError(t, err)
	assert.Equal(t, "ceil", c.ClosedLoop().GOMAXPROCSRule)
}

func mustRaw(t *testing.T, c Config, key string) []byte {
	raw, ok := c.Params.Raw(key)
	require.True(t, ok, key)
	return raw
}
