package compare

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/throttlebench/throttlebench/internal/report"
)

// compare pairs results of the same command only: the command line (and
// --prepare) is in the workload key.
func TestCommandCompareKey(t *testing.T) {
	key := func(argv []string, prepare string) string {
		r := &report.Report{Config: report.Config{Workload: "command",
			Params: report.Params{}.With("command", argv).With("prepare", prepare)}}
		k, _ := ReadKey(r, "workload")
		return k
	}
	assert.Equal(t, "command(python3 -c pass)", key([]string{"python3", "-c", "pass"}, ""))
	assert.Equal(t, "command(make -j2,prepare=make clean)", key([]string{"make", "-j2"}, "make clean"))
	assert.NotEqual(t, key([]string{"sh", "-c", "a b"}, ""), key([]string{"sh", "-c", "a", "b"}, ""), "arguments keep their bounds")
}

// The workload key carries memtouch's parameters, touch among them; a
// result written before touch existed stored one byte per page, so it
// reads as page: it matches today's --touch page, not the default; its
// reuse kept one buffer, not one per operation of the batch.
func TestWorkloadKeyMemtouchTouch(t *testing.T) {
	key := func(c report.Config) string { k, _ := ReadKey(&report.Report{Config: c}, "workload"); return k }
	mt := report.Config{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 1<<20).With("memory", "fresh"), Batch: 100}
	old := key(mt)
	assert.Equal(t, "memtouch(buffer=1048576,memory=fresh,touch=page)", old)
	mt.Params = mt.Params.With("touch", "page")
	assert.Equal(t, old, key(mt))
	mt.Params = mt.Params.With("touch", "all")
	assert.Equal(t, "memtouch(buffer=1048576,memory=fresh,touch=all)", key(mt))

	// Reuse says how many buffers it repainted: one per operation of the
	// batch, one in all before touch existed.
	mt.Params = mt.Params.With("memory", "reuse")
	assert.Equal(t, "memtouch(buffer=1048576,memory=reuse,touch=all,kept=100)", key(mt))
	mt.Params = mt.Params.With("touch", "page")
	assert.Equal(t, "memtouch(buffer=1048576,memory=reuse,touch=page,kept=100)", key(mt))
	mt.Params = report.Params{}.With("buffer_bytes", 1<<20).With("memory", "reuse")
	assert.Equal(t, "memtouch(buffer=1048576,memory=reuse,touch=page,kept=1)", key(mt))
	assert.Equal(t, "spin(units=1000)", key(report.Config{Workload: "spin", Params: report.Params{}.With("units", 1000)}))
	assert.Equal(t, "bcrypt", key(report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4)}))
}
