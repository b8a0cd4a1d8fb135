package bench

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
)

// threadCounters are a thread's getrusage counters (threadUsage): page
// faults and context switches so far.
type threadCounters struct {
	minor, major           uint64
	voluntary, involuntary uint64
}

// sub is the change from c0 to c.
func (c threadCounters) sub(c0 threadCounters) threadCounters {
	return threadCounters{minor: c.minor - c0.minor, major: c.major - c0.major,
		voluntary: c.voluntary - c0.voluntary, involuntary: c.involuntary - c0.involuntary}
}

// CPUSet is a set of CPU ids, one bit each. It grows to the highest id
// added, so recording a CPU already seen allocates nothing.
type CPUSet struct{ words []uint64 }

// Add puts cpu in the set; a negative id (unknown) is ignored.
func (s *CPUSet) Add(cpu int) {
	if cpu < 0 {
		return
	}
	w := cpu / 64
	if w >= len(s.words) {
		s.words = append(s.words, make([]uint64, w+1-len(s.words))...)
	}
	s.words[w] |= 1 << (cpu % 64)
}

// Has says whether cpu is in the set.
func (s *CPUSet) Has(cpu int) bool {
	w := cpu / 64
	return cpu >= 0 && w < len(s.words) && s.words[w]&(1<<(cpu%64)) != 0
}

// Len is how many CPUs the set holds.
func (s *CPUSet) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// List is the set's CPU ids in ascending order; nil when it is empty.
func (s *CPUSet) List() []int {
	var l []int
	for i, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			l = append(l, i*64+b)
			w &^= 1 << b
		}
	}
	return l
}

// Reset empties the set, keeping its storage.
func (s *CPUSet) Reset() { clear(s.words) }

// placement is one worker's record of where it ran during a batch: the
// CPUs seen at operation boundaries and how often two consecutive samples
// differed, a lower bound on its migrations (one that went and came back
// between two samples is missed).
type placement struct {
	cpus    CPUSet
	last    int // the last CPU seen; -1 none yet
	changes uint64
}

func (p *placement) reset() {
	p.cpus.Reset()
	p.last, p.changes = -1, 0
}

// observe records a sample; a negative cpu (getcpu failed) is skipped.
func (p *placement) observe(cpu int) {
	if cpu == p.last || cpu < 0 {
		return
	}
	if p.last >= 0 {
		p.changes++
	}
	p.last = cpu
	p.cpus.Add(cpu)
}

// ErrParse is wrapped by errors about a kernel file's content.
var ErrParse = errors.New("cannot parse")

// parseNrMigrations finds se.nr_migrations in the text of
// /proc/<pid>/task/<tid>/sched ("se.nr_migrations   :   12"): the times
// the scheduler moved the thread to another CPU since it started.
func parseNrMigrations(data []byte) (uint64, error) {
	for line := range bytes.Lines(data) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || string(bytes.TrimSpace(name)) != "se.nr_migrations" {
			continue
		}
		v := bytes.TrimSpace(value)
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: se.nr_migrations %q", ErrParse, v)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%w: no se.nr_migrations", ErrParse)
}
