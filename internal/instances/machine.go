package instances

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The policies' names, as --instances takes them.
const (
	PerRequest = "per-request"
	Shared     = "shared"
	Pool       = "pool" // written pool:N
)

// MaxAlive bounds the instances alive at once, in any policy: each is a
// process and a cgroup, and per-request mode would otherwise start one for
// every request that arrives while the others are busy.
const MaxAlive = 256

// Policy is how requests meet instances.
type Policy struct {
	Mode string // PerRequest, Shared or Pool
	// Max is the most instances alive (starting or started) at once.
	Max int
	// Concurrency is the most requests one instance serves at once.
	Concurrency int
	// KeepAlive is how long an instance may stay idle before it is
	// retired; 0 retires it as soon as it has nothing to do.
	KeepAlive time.Duration
}

// ParsePolicy reads --instances (per-request, shared, pool:N) with the
// concurrency and keep-alive that apply: per-request serves one request at
// a time whatever concurrency says. The error says what is allowed.
func ParsePolicy(s string, concurrency int, keepAlive time.Duration) (Policy, error) {
	p := Policy{Mode: s, Concurrency: concurrency, KeepAlive: keepAlive}
	switch {
	case s == PerRequest:
		p.Max, p.Concurrency = MaxAlive, 1
	case s == Shared:
		p.Max = 1
	case strings.HasPrefix(s, Pool+":"):
		// N as written, digits without a sign or a leading zero, so that
		// the policy echoed in the report is the one given.
		num := strings.TrimPrefix(s, Pool+":")
		n, err := strconv.Atoi(num)
		if err != nil || num[0] < '1' || num[0] > '9' || n > MaxAlive {
			return p, fmt.Errorf("want pool:N with N a whole number between 1 and %d, written without a sign or leading zeros", MaxAlive)
		}
		p.Mode, p.Max = Pool, n
	default:
		return p, fmt.Errorf("want per-request, shared or pool:N (N from 1 to %d)", MaxAlive)
	}
	if p.Concurrency < 1 {
		return p, fmt.Errorf("concurrency %d: want at least 1", p.Concurrency)
	}
	return p, nil
}

// String is the policy as --instances takes it.
func (p Policy) String() string {
	if p.Mode == Pool {
		return Pool + ":" + strconv.Itoa(p.Max)
	}
	return p.Mode
}

// Kind is what an Action asks of the runner.
type Kind int

const (
	// Start a new instance (its slice, its process, its cold start); the
	// machine hears back through Ready or Failed.
	Start Kind = iota
	// Send Request to Instance, which is ready and has a free slot; Cold
	// says the request waited for that instance's cold start (it was
	// reserved to the instance while it started: the request that started
	// it, and up to Concurrency-1 more that joined it).
	Send
	// Retire Instance: it is idle, and the machine sends it nothing more.
	Retire
	// Fail Request: no instance will serve it, for Reason.
	Fail
)

func (k Kind) String() string {
	return [...]string{"start", "send", "retire", "fail"}[k]
}

// Action is one thing for the runner to do, in the order given.
type Action struct {
	Kind     Kind
	Instance int // Start, Send, Retire; Fail: the instance that failed
	Request  int // Send, Fail
	Cold     bool
	Reason   string // Fail
}

func (a Action) String() string {
	switch a.Kind {
	case Send:
		c := ""
		if a.Cold {
			c = " cold"
		}
		return fmt.Sprintf("send %d→%d%s", a.Request, a.Instance, c)
	case Fail:
		return fmt.Sprintf("fail %d (%s)", a.Request, a.Reason)
	}
	return fmt.Sprintf("%v %d", a.Kind, a.Instance)
}

type state int

const (
	starting state = iota
	ready
	gone
)

// Instance is what the machine knows of one instance: the record the bill
// and the report are made from.
type Instance struct {
	ID      int
	Started time.Duration // when it was asked to start
	Ready   time.Duration // when its cold start ended; -1 if it never did
	// Gone is when it was retired or failed, or the run ended (Drain).
	Gone time.Duration
	// Failed says why it ended other than by retirement ("" if it did not).
	Failed string
	Served int // requests it was sent
	// Peak is the most requests it served at once.
	Peak int

	state     state
	inflight  []int
	reserved  []int         // requests waiting for it to be ready (it is starting)
	idleSince time.Duration // ready with nothing in flight since then
	lastUsed  int           // a sequence number: higher is more recent
}

// Lifetime is how long the instance lived: from start to gone.
func (in *Instance) Lifetime() time.Duration { return in.Gone - in.Started }

// Machine is the dispatcher's state. Its zero value is not usable: New.
type Machine struct {
	p         Policy
	instances []*Instance
	queue     []int
	alive     int
	peak      int
	seq       int
	// failedStarts counts cold starts that failed.
	failedStarts int
}

// New returns a machine with no instance and nothing queued.
func New(p Policy) *Machine {
	p.Max = max(p.Max, 1)
	p.Concurrency = max(p.Concurrency, 1)
	return &Machine{p: p}
}

// Arrive queues request req, which arrived at now.
func (m *Machine) Arrive(now time.Duration, req int) []Action {
	m.queue = append(m.queue, req)
	return m.step(now, nil)
}

// Ready says instance id finished its cold start at now.
func (m *Machine) Ready(now time.Duration, id int) []Action {
	in := m.get(id)
	if in == nil || in.state != starting {
		return nil
	}
	in.state, in.Ready, in.idleSince = ready, now, now
	return m.step(now, nil)
}

// Done says instance id replied to request req at now.
func (m *Machine) Done(now time.Duration, id, req int) []Action {
	in := m.get(id)
	if in == nil {
		return nil
	}
	i := slices.Index(in.inflight, req)
	if i < 0 {
		return nil
	}
	in.inflight = slices.Delete(in.inflight, i, i+1)
	if len(in.inflight) == 0 {
		in.idleSince = now
	}
	m.seq++
	in.lastUsed = m.seq
	return m.step(now, nil)
}

// Failed says instance id ended at now without being retired: its cold
// start failed, or it died while serving. The requests it was serving fail
// with reason. When its cold start failed, the requests that were waiting
// for it fail too: a failed start is reported, never retried in their
// name. Requests that arrive later start instances as usual.
func (m *Machine) Failed(now time.Duration, id int, reason string) []Action {
	in := m.get(id)
	if in == nil || in.state == gone {
		return nil
	}
	wasStarting := in.state == starting
	m.drop(in, now)
	in.Failed = reason
	var acts []Action
	for _, req := range in.inflight {
		acts = append(acts, Action{Kind: Fail, Instance: id, Request: req, Reason: reason})
	}
	in.inflight = nil
	if wasStarting {
		m.failedStarts++
		for _, req := range in.reserved {
			acts = append(acts, Action{Kind: Fail, Instance: id, Request: req, Reason: "cold start failed: " + reason})
		}
		in.reserved = nil
	}
	return m.step(now, acts)
}

// Deadline is when the next idle instance's keep-alive runs out; false when
// no instance is idle.
func (m *Machine) Deadline() (time.Duration, bool) {
	var at time.Duration
	found := false
	for _, in := range m.instances {
		if in.state == ready && len(in.inflight) == 0 {
			if d := in.idleSince + m.p.KeepAlive; !found || d < at {
				at, found = d, true
			}
		}
	}
	return at, found
}

// Tick lets time pass to now: instances idle for their keep-alive retire.
func (m *Machine) Tick(now time.Duration) []Action { return m.step(now, nil) }

// Drain ends the run at now: every instance still alive retires (or, still
// starting, is abandoned as retired), and any request still queued fails.
func (m *Machine) Drain(now time.Duration) []Action {
	var acts []Action
	for _, req := range m.queue {
		acts = append(acts, Action{Kind: Fail, Instance: -1, Request: req, Reason: "the run ended before an instance took it"})
	}
	m.queue = nil
	for _, in := range m.instances {
		if in.state != gone {
			for _, req := range in.reserved {
				acts = append(acts, Action{Kind: Fail, Instance: in.ID, Request: req, Reason: "the run ended before its instance was ready"})
			}
			for _, req := range in.inflight {
				acts = append(acts, Action{Kind: Fail, Instance: in.ID, Request: req, Reason: "the run ended while it was served"})
			}
			in.reserved, in.inflight = nil, nil
			m.drop(in, now)
			acts = append(acts, Action{Kind: Retire, Instance: in.ID})
		}
	}
	return acts
}

// Idle says nothing is queued or in flight.
func (m *Machine) Idle() bool {
	if len(m.queue) > 0 {
		return false
	}
	for _, in := range m.instances {
		if len(in.inflight) > 0 || len(in.reserved) > 0 {
			return false
		}
	}
	return true
}

// Instances are every instance started so far, in the order they were.
func (m *Machine) Instances() []*Instance { return m.instances }

// Peak is the most instances alive (starting or started) at once.
func (m *Machine) Peak() int { return m.peak }

// FailedStarts counts the cold starts that failed.
func (m *Machine) FailedStarts() int { return m.failedStarts }

func (m *Machine) get(id int) *Instance {
	if id < 0 || id >= len(m.instances) {
		return nil
	}
	return m.instances[id]
}

func (m *Machine) drop(in *Instance, now time.Duration) {
	in.state, in.Gone = gone, now
	m.alive--
}

// step sends what can be sent, starts what is needed and retires what
// has idled long enough, after acts.
func (m *Machine) step(now time.Duration, acts []Action) []Action {
	// Send: what waited for an instance now ready goes to it first.
	for _, in := range m.instances {
		if in.state == ready {
			for _, req := range in.reserved {
				acts = append(acts, m.send(in, req, true))
			}
			in.reserved = nil
		}
	}
	// Then the queue's head to the best instance with a free slot.
	for len(m.queue) > 0 {
		in := m.pick()
		if in == nil {
			break
		}
		req := m.queue[0]
		m.queue = m.queue[1:]
		acts = append(acts, m.send(in, req, false))
	}
	// What is left joins an instance starting with room for it, or starts
	// one, and waits for it.
	for _, in := range m.instances {
		for in.state == starting && len(in.reserved) < m.p.Concurrency && len(m.queue) > 0 {
			in.reserved = append(in.reserved, m.queue[0])
			m.queue = m.queue[1:]
		}
	}
	for len(m.queue) > 0 && m.alive < m.p.Max {
		in := &Instance{ID: len(m.instances), Started: now, Ready: -1}
		m.instances = append(m.instances, in)
		m.alive++
		m.peak = max(m.peak, m.alive)
		acts = append(acts, Action{Kind: Start, Instance: in.ID})
		n := min(len(m.queue), m.p.Concurrency)
		in.reserved = append(in.reserved, m.queue[:n]...)
		m.queue = m.queue[n:]
	}
	// Retire: idle for the keep-alive (at once when it is 0), but only
	// while nothing waits: an idle instance with a queue cannot be.
	for _, in := range m.instances {
		if in.state == ready && len(in.inflight) == 0 && now-in.idleSince >= m.p.KeepAlive {
			m.drop(in, now)
			acts = append(acts, Action{Kind: Retire, Instance: in.ID})
		}
	}
	return acts
}

// send hands req to in, which is ready with a free slot; cold says req
// waited for in's cold start.
func (m *Machine) send(in *Instance, req int, cold bool) Action {
	in.inflight = append(in.inflight, req)
	in.Peak = max(in.Peak, len(in.inflight))
	in.Served++
	m.seq++
	in.lastUsed = m.seq
	return Action{Kind: Send, Instance: in.ID, Request: req, Cold: cold}
}

// pick is the ready instance with a free slot that should take the next
// request: the least loaded (each instance has its own CPU limit, so
// spreading serves faster), then the most recently used (so that the
// others idle and can be retired), then the oldest.
func (m *Machine) pick() *Instance {
	var best *Instance
	for _, in := range m.instances {
		if in.state != ready || len(in.inflight) >= m.p.Concurrency {
			continue
		}
		if best == nil || len(in.inflight) < len(best.inflight) ||
			(len(in.inflight) == len(best.inflight) && in.lastUsed > best.lastUsed) {
			best = in
		}
	}
	return best
}
