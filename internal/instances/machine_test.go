package instances

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

func policy(t *testing.T, s string, concurrency int, keepAlive time.Duration) Policy {
	t.Helper()
	p, err := ParsePolicy(s, concurrency, keepAlive)
	require.NoError(t, err)
	return p
}

func strs(acts []Action) string {
	var s []string
	for _, a := range acts {
		s = append(s, a.String())
	}
	return strings.Join(s, ", ")
}

func TestParsePolicy(t *testing.T) {
	for _, c := range []struct {
		in   string
		k    int
		want Policy
	}{
		{"per-request", 10, Policy{Mode: PerRequest, Max: MaxAlive, Concurrency: 1, KeepAlive: time.Minute}},
		{"shared", 10, Policy{Mode: Shared, Max: 1, Concurrency: 10, KeepAlive: time.Minute}},
		{"pool:4", 2, Policy{Mode: Pool, Max: 4, Concurrency: 2, KeepAlive: time.Minute}},
		{"pool:256", 1, Policy{Mode: Pool, Max: 256, Concurrency: 1, KeepAlive: time.Minute}},
	} {
		p, err := ParsePolicy(c.in, c.k, time.Minute)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, p, c.in)
		assert.Equal(t, c.in, p.String())
	}
	for _, bad := range []string{"pool:0", "pool:x", "pool:", "pool:257", "pool:-1", "pool", "lambda", "", "shared:2", "pool:1.5", "pool:+3", "pool:01", "pool: 3", "pool:3 "} {
		_, err := ParsePolicy(bad, 1, 0)
		assert.Error(t, err, bad)
	}
	_, err := ParsePolicy("shared", 0, 0)
	assert.ErrorContains(t, err, "concurrency 0")
	_, err = ParsePolicy("per-request", 0, 0)
	assert.NoError(t, err, "per-request serves one at a time whatever --concurrency says")
}

// The first request starts an instance and waits for it; once ready it
// is sent there, cold. The second, after the first is done, reuses the
// warm instance.
func TestWarmInstanceIsReused(t *testing.T) {
	m := New(policy(t, PerRequest, 1, time.Minute))
	assert.Equal(t, "start 0", strs(m.Arrive(0, 0)))
	assert.Equal(t, "send 0→0 cold", strs(m.Ready(100*ms, 0)))
	assert.Empty(t, m.Done(150*ms, 0, 0))
	assert.Equal(t, "send 1→0", strs(m.Arrive(200*ms, 1)), "warm: no start")
	assert.Empty(t, m.Done(250*ms, 0, 1))
	assert.Len(t, m.Instances(), 1)
	assert.Equal(t, 2, m.Instances()[0].Served)
	assert.True(t, m.Idle())
}

// Per-request: ten at once start ten instances, and each request waits
// for the one it started, cold, even when another is free first.
func TestPerRequestStartsOneEach(t *testing.T) {
	m := New(policy(t, PerRequest, 80, time.Minute))
	for i := range 10 {
		assert.Equal(t, fmt.Sprintf("start %d", i), strs(m.Arrive(0, i)))
	}
	assert.Equal(t, 10, m.Peak())
	assert.Equal(t, 10, queued(m))
	assert.Equal(t, "send 7→7 cold", strs(m.Ready(90*ms, 7)))
	assert.Equal(t, "send 2→2 cold", strs(m.Ready(95*ms, 2)))
	// Instance 7, free again while the others still start, takes none of
	// the requests waiting for them.
	assert.Empty(t, m.Done(100*ms, 7, 7))
	for _, id := range []int{0, 1, 3, 4, 5, 6, 8, 9} {
		assert.Equal(t, fmt.Sprintf("send %d→%d cold", id, id), strs(m.Ready(110*ms, id)))
	}
	assert.Equal(t, 10, m.alive)
	for _, in := range m.Instances() {
		assert.Equal(t, 1, in.Served, "instance %d", in.ID)
	}
}

// At the pool's limit a request starts nothing: it waits in the queue for
// whichever instance frees first, warm.
func TestQueuedBeyondTheLimitTakesTheFirstFree(t *testing.T) {
	m := New(policy(t, "pool:2", 1, time.Minute))
	assert.Equal(t, "start 0", strs(m.Arrive(0, 0)))
	assert.Equal(t, "start 1", strs(m.Arrive(0, 1)))
	assert.Empty(t, m.Arrive(0, 2), "the pool is full")
	assert.Equal(t, "send 1→1 cold", strs(m.Ready(50*ms, 1)))
	assert.Equal(t, "send 2→1", strs(m.Done(60*ms, 1, 1)), "instance 1 frees first; 0 still starts")
	assert.Equal(t, "send 0→0 cold", strs(m.Ready(70*ms, 0)))
}

// An idle instance retires once its keep-alive has run out, not before;
// a request that arrives after that starts a new one, cold again.
func TestKeepAliveExpiry(t *testing.T) {
	m := New(policy(t, PerRequest, 1, time.Second))
	m.Arrive(0, 0)
	m.Ready(100*ms, 0)
	m.Done(300*ms, 0, 0)
	at, ok := m.Deadline()
	require.True(t, ok)
	assert.Equal(t, 1300*ms, at, "idle since the reply, for the keep-alive")
	assert.Empty(t, m.Tick(1299*ms))
	assert.Equal(t, "retire 0", strs(m.Tick(1300*ms)))
	_, ok = m.Deadline()
	assert.False(t, ok)
	assert.Equal(t, 0, m.alive)
	assert.Equal(t, 1300*ms, m.Instances()[0].Lifetime())
	assert.Equal(t, "start 1", strs(m.Arrive(2*time.Second, 1)))
	assert.Equal(t, "send 1→1 cold", strs(m.Ready(2100*ms, 1)))
}

// A request that comes before the keep-alive runs out renews it.
func TestKeepAliveRenewedByUse(t *testing.T) {
	m := New(policy(t, Shared, 4, time.Second))
	m.Arrive(0, 0)
	m.Ready(0, 0)
	m.Done(100*ms, 0, 0)
	assert.Equal(t, "send 1→0", strs(m.Arrive(900*ms, 1)))
	_, ok := m.Deadline()
	assert.False(t, ok, "busy: no deadline")
	assert.Empty(t, m.Tick(1100*ms), "busy instances do not expire")
	m.Done(1200*ms, 0, 1)
	at, _ := m.Deadline()
	assert.Equal(t, 2200*ms, at)
}

// Keep-alive 0 retires an instance as soon as it is idle with nothing
// queued: a request that arrives later is a cold start, but one queued at
// the policy's limit goes, warm, to the instance that frees up.
func TestKeepAliveZero(t *testing.T) {
	m := New(policy(t, PerRequest, 1, 0))
	m.Arrive(0, 0)
	m.Ready(10*ms, 0)
	assert.Equal(t, "retire 0", strs(m.Done(20*ms, 0, 0)))
	assert.Equal(t, "start 1", strs(m.Arrive(30*ms, 1)))

	m = New(policy(t, "pool:1", 1, 0))
	m.Arrive(0, 0)
	m.Arrive(0, 1)
	assert.Equal(t, "send 0→0 cold", strs(m.Ready(10*ms, 0)))
	assert.Equal(t, "send 1→0", strs(m.Done(20*ms, 0, 0)), "queued at the limit: sent warm, not retired")
	assert.Equal(t, "retire 0", strs(m.Done(30*ms, 0, 1)))
}

// Shared: one instance however many arrive, at most K in flight; the
// rest wait at the dispatcher and go as slots free, oldest first.
func TestSharedConcurrencyLimit(t *testing.T) {
	m := New(policy(t, Shared, 3, time.Minute))
	var acts []Action
	for i := range 5 {
		acts = append(acts, m.Arrive(0, i)...)
	}
	assert.Equal(t, "start 0", strs(acts), "one instance for all")
	assert.Equal(t, "send 0→0 cold, send 1→0 cold, send 2→0 cold", strs(m.Ready(50*ms, 0)), "up to K at once, each having waited for the cold start")
	assert.Equal(t, 2, queued(m))
	assert.Equal(t, "send 3→0", strs(m.Done(60*ms, 0, 1)))
	assert.Equal(t, "send 4→0", strs(m.Done(70*ms, 0, 0)))
	assert.Empty(t, m.Done(80*ms, 0, 2))
	assert.Equal(t, 1, m.Peak())
	assert.Equal(t, 3, m.Instances()[0].Peak, "never more than K at once")
	assert.Equal(t, 5, m.Instances()[0].Served)
}

// pool:N starts no more than N; with concurrency K, ⌈queued/K⌉ of them.
func TestPoolLimit(t *testing.T) {
	m := New(policy(t, "pool:2", 2, time.Minute))
	var acts []Action
	for i := range 7 {
		acts = append(acts, m.Arrive(0, i)...)
	}
	assert.Equal(t, "start 0, start 1", strs(acts), "7 queued need 4 instances of 2; the pool has 2")
	assert.Equal(t, 2, m.Peak())
	assert.Equal(t, "send 0→0 cold, send 1→0 cold", strs(m.Ready(10*ms, 0)))
	assert.Equal(t, "send 2→1 cold, send 3→1 cold", strs(m.Ready(12*ms, 1)))
	assert.Equal(t, 3, queued(m))
	assert.Equal(t, "send 4→1", strs(m.Done(20*ms, 1, 2)))
	assert.Equal(t, 2, m.alive)

	// Fewer queued than the starting capacity: no second instance.
	m = New(policy(t, "pool:4", 3, time.Minute))
	acts = nil
	for i := range 3 {
		acts = append(acts, m.Arrive(0, i)...)
	}
	assert.Equal(t, "start 0", strs(acts), "one starting instance takes 3")
	assert.Equal(t, "start 1", strs(m.Arrive(0, 3)))
}

// A pool spreads requests over its ready instances, the least loaded
// first: each has its own CPU limit.
func TestPoolSpreadsTheLoad(t *testing.T) {
	m := New(policy(t, "pool:2", 4, time.Minute))
	for i := range 5 {
		m.Arrive(0, i)
	}
	m.Ready(10*ms, 0) // takes 0..3
	m.Ready(10*ms, 1) // takes 4
	m.Done(20*ms, 0, 0)
	m.Done(20*ms, 0, 1)
	assert.Equal(t, "send 5→1", strs(m.Arrive(30*ms, 5)), "instance 1 serves one, instance 0 two")
	assert.Equal(t, "send 6→1", strs(m.Arrive(30*ms, 6)), "then both serve two: the most recently used")
}

// Per-request reuses the most recently idle instance, so that the others
// idle on and retire.
func TestPerRequestReusesTheMostRecent(t *testing.T) {
	m := New(policy(t, PerRequest, 1, time.Second))
	m.Arrive(0, 0)
	m.Arrive(0, 1)
	m.Ready(10*ms, 0)
	m.Ready(10*ms, 1)
	m.Done(50*ms, 1, 1)
	m.Done(60*ms, 0, 0)
	assert.Equal(t, "send 2→0", strs(m.Arrive(100*ms, 2)))
	assert.Equal(t, "retire 1", strs(m.Tick(1050*ms)))
}

// A cold start that fails fails the requests that waited for it, with the
// reason, and is not retried for them; the others keep waiting for the
// instances they started, and later arrivals start instances anew.
func TestFailedColdStart(t *testing.T) {
	m := New(policy(t, PerRequest, 1, time.Minute))
	for i := range 3 {
		m.Arrive(0, i)
	}
	assert.Equal(t, "fail 1 (cold start failed: exit status 2)", strs(m.Failed(40*ms, 1, "exit status 2")),
		"the request that started it")
	assert.Equal(t, 1, m.FailedStarts())
	assert.Equal(t, 2, m.alive)
	assert.Equal(t, "send 0→0 cold", strs(m.Ready(50*ms, 0)))
	assert.Equal(t, "send 2→2 cold", strs(m.Ready(55*ms, 2)))
	assert.Equal(t, "exit status 2", m.Instances()[1].Failed)
	assert.Equal(t, 40*ms, m.Instances()[1].Lifetime())
	assert.Equal(t, "start 3", strs(m.Arrive(100*ms, 3)))
	assert.Empty(t, m.Failed(120*ms, 1, "again"), "a gone instance cannot fail twice")

	// Shared: the one instance fails, and everything waiting with it.
	m = New(policy(t, Shared, 8, time.Minute))
	for i := range 3 {
		m.Arrive(0, i)
	}
	assert.Equal(t, "fail 0 (cold start failed: oom), fail 1 (cold start failed: oom), fail 2 (cold start failed: oom)",
		strs(m.Failed(10*ms, 0, "oom")))
	assert.True(t, m.Idle())
	assert.Equal(t, 0, m.alive)
}

// An instance that dies while serving fails its requests in flight; the
// queue goes on to the others, or to a new instance.
func TestInstanceCrash(t *testing.T) {
	m := New(policy(t, Shared, 2, time.Minute))
	for i := range 3 {
		m.Arrive(0, i)
	}
	m.Ready(10*ms, 0)
	assert.Equal(t, "fail 0 (killed), fail 1 (killed), start 1", strs(m.Failed(20*ms, 0, "killed")))
	assert.Equal(t, "send 2→1 cold", strs(m.Ready(30*ms, 1)))
	assert.Equal(t, 0, m.FailedStarts(), "it had started")
}

// Drain ends the run: what is alive retires, what is queued or in flight
// fails, and lifetimes end there.
func TestDrain(t *testing.T) {
	m := New(policy(t, "pool:1", 1, time.Minute))
	m.Arrive(0, 0)
	m.Arrive(0, 1)
	m.Ready(10*ms, 0)
	acts := m.Drain(500 * ms)
	assert.Equal(t, "fail 1 (the run ended before an instance took it), fail 0 (the run ended while it was served), retire 0", strs(acts))
	assert.Equal(t, 500*ms, m.Instances()[0].Lifetime())
	assert.True(t, m.Idle())
	assert.Empty(t, m.Drain(600*ms))
}

// Events about unknown instances or requests change nothing.
func TestStrayEvents(t *testing.T) {
	m := New(policy(t, Shared, 1, time.Minute))
	assert.Empty(t, m.Ready(0, 3))
	assert.Empty(t, m.Done(0, -1, 0))
	assert.Empty(t, m.Failed(0, 9, "x"))
	m.Arrive(0, 0)
	m.Ready(0, 0)
	assert.Empty(t, m.Ready(0, 0), "ready twice")
	assert.Empty(t, m.Done(0, 0, 7), "not in flight there")
}

// sim runs the machine against a fake world: every instance takes
// coldStart to start (or fails, for those in failAt), every request
// service to serve; time jumps from one event to the next, keep-alive
// deadlines included.
type sim struct {
	m         *Machine
	coldStart time.Duration
	service   time.Duration
	fail      map[int]string
	events    []event
	now       time.Duration
	sent      map[int]Action // by request
	failed    map[int]string
	retired   []int
}

type event struct {
	at   time.Duration
	kind string // arrive, ready, fail, done
	id   int    // instance
	req  int
}

func newSim(p Policy, coldStart, service time.Duration) *sim {
	return &sim{m: New(p), coldStart: coldStart, service: service, fail: map[int]string{},
		sent: map[int]Action{}, failed: map[int]string{}}
}

func (s *sim) arrive(at time.Duration, reqs ...int) {
	for _, r := range reqs {
		s.events = append(s.events, event{at: at, kind: "arrive", req: r})
	}
}

func (s *sim) apply(acts []Action) {
	for _, a := range acts {
		switch a.Kind {
		case Start:
			if why, ok := s.fail[a.Instance]; ok {
				s.events = append(s.events, event{at: s.now + s.coldStart, kind: "fail", id: a.Instance, req: -1})
				s.fail[a.Instance] = why
			} else {
				s.events = append(s.events, event{at: s.now + s.coldStart, kind: "ready", id: a.Instance})
			}
		case Send:
			s.sent[a.Request] = a
			s.events = append(s.events, event{at: s.now + s.service, kind: "done", id: a.Instance, req: a.Request})
		case Retire:
			s.retired = append(s.retired, a.Instance)
		case Fail:
			s.failed[a.Request] = a.Reason
		}
	}
}

// run plays every event in time order (arrivals first among equals, as
// they were given) and returns when nothing is left.
func (s *sim) run() {
	for {
		slices.SortStableFunc(s.events, func(a, b event) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return 0
		})
		deadline, ok := s.m.Deadline()
		if len(s.events) == 0 && !ok {
			return
		}
		if ok && (len(s.events) == 0 || deadline < s.events[0].at) {
			s.now = deadline
			s.apply(s.m.Tick(deadline))
			continue
		}
		e := s.events[0]
		s.events = s.events[1:]
		s.now = e.at
		switch e.kind {
		case "arrive":
			s.apply(s.m.Arrive(e.at, e.req))
		case "ready":
			s.apply(s.m.Ready(e.at, e.id))
		case "fail":
			s.apply(s.m.Failed(e.at, e.id, s.fail[e.id]))
		case "done":
			s.apply(s.m.Done(e.at, e.id, e.req))
		}
	}
}

// The seed experiment's shape on the fake world: ten requests at once,
// a 70 ms cold start, 2.1 s a request. Per-request: ten instances, ten
// cold requests, each instance living cold start + service + keep-alive.
// Shared: one instance, one cold start that all ten requests waited for
// (all cold), every request done after the cold start and its service.
func TestSimulatedExperiment(t *testing.T) {
	s := newSim(policy(t, PerRequest, 10, time.Second), 70*ms, 2100*ms)
	s.arrive(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	s.run()
	assert.Len(t, s.m.Instances(), 10)
	assert.Equal(t, 10, s.m.Peak())
	cold := 0
	for _, a := range s.sent {
		if a.Cold {
			cold++
		}
	}
	assert.Equal(t, 10, cold)
	assert.Len(t, s.retired, 10)
	for _, in := range s.m.Instances() {
		assert.Equal(t, 70*ms+2100*ms+time.Second, in.Lifetime())
	}

	s = newSim(policy(t, Shared, 10, time.Second), 70*ms, 2100*ms)
	s.arrive(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	s.run()
	assert.Len(t, s.m.Instances(), 1)
	assert.Equal(t, 10, s.m.Instances()[0].Peak)
	assert.Equal(t, 3170*ms, s.m.Instances()[0].Lifetime())
	for i := range 10 {
		assert.True(t, s.sent[i].Cold, "shared: request %d waited for the one cold start", i)
	}

	// Shared with K = 5: the second five wait a whole service for a slot,
	// and are sent warm.
	s = newSim(policy(t, Shared, 5, 0), 70*ms, 2100*ms)
	s.arrive(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	s.run()
	assert.Equal(t, 70*ms+2*2100*ms, s.m.Instances()[0].Lifetime(), "two rounds, then retired at once (keep-alive 0)")
	for i := range 10 {
		assert.Equal(t, i < 5, s.sent[i].Cold, "shared K=5: request %d", i)
	}
}

// Requests spread in time: per-request keeps reusing the warm instances
// it has, starting a new one only when all are busy.
func TestSimulatedSteadyArrivals(t *testing.T) {
	s := newSim(policy(t, PerRequest, 1, time.Minute), 100*ms, 150*ms)
	for i := range 20 {
		s.arrive(time.Duration(i)*100*ms, i) // one every 100 ms, each 150 ms
	}
	s.run()
	// Request 1 arrives as instance 0 becomes ready for request 0, and
	// starts instance 1; request 2 arrives while both are busy and starts
	// a third. Each of the three is served by the instance it started;
	// from request 3 on, warm instances take turns.
	assert.Equal(t, 3, s.m.Peak())
	assert.Len(t, s.m.Instances(), 3)
	for i := range 20 {
		assert.Equal(t, i < 3, s.sent[i].Cold, "request %d", i)
		if i < 3 {
			assert.Equal(t, i, s.sent[i].Instance, "request %d on the instance it started", i)
		}
	}

	// A failing instance in a pool: its requests fail, the run goes on.
	s = newSim(policy(t, "pool:2", 2, time.Minute), 100*ms, 150*ms)
	s.fail[0] = "exec format error"
	s.arrive(0, 0, 1)
	s.arrive(500*ms, 2, 3)
	s.run()
	assert.Equal(t, map[int]string{0: "cold start failed: exec format error", 1: "cold start failed: exec format error"}, s.failed)
	assert.Len(t, s.sent, 2)
	assert.True(t, s.sent[2].Cold)
	assert.Equal(t, 1, s.m.FailedStarts())
}

// queued is how many requests wait for an instance: in the queue, and for
// the instances starting for them.
func queued(m *Machine) int {
	n := len(m.queue)
	for _, in := range m.instances {
		n += len(in.reserved)
	}
	return n
}
