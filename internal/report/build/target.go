package build

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
)

// The rule a latency --target run is judged by, as the flags say it by
// default: a response is a success when its status is 2xx or 3xx (a
// redirect is the server answering), and the run fails when more than 1%
// of its requests fail: a CI job must not pass on a server that refuses,
// errs or is not there, while one reset connection in a long run is noise.
const (
	DefaultAcceptStatus = "2xx,3xx"
	DefaultMaxFailures  = "1%"
)

// FailureRule is --accept-status and --max-failures: which statuses are a
// success (Accept, inclusive ranges of codes), and how many failures a run
// may have: MaxPercent of its requests with Percent, else MaxCount.
// Failures are timeouts, connection errors, failed requests (a malformed
// response) and responses of a status Accept leaves out.
type FailureRule struct {
	Accept     [][2]int
	Percent    bool
	MaxPercent float64
	MaxCount   int
	// As given, for the result and the messages.
	AcceptSpec, MaxSpec string
}

// ParseAcceptStatus reads --accept-status: a comma-separated list of codes
// (404), ranges (200-299) and classes (2xx), each within 100–599.
func ParseAcceptStatus(s string) ([][2]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("want status codes such as 2xx,3xx or 200-299,404")
	}
	var out [][2]int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		var lo, hi int
		var err error
		switch {
		case len(part) == 3 && strings.HasSuffix(strings.ToLower(part), "xx") && part[0] >= '1' && part[0] <= '5':
			lo = int(part[0]-'0') * 100
			hi = lo + 99
		case strings.Contains(part, "-"):
			a, b, _ := strings.Cut(part, "-")
			if lo, err = strconv.Atoi(strings.TrimSpace(a)); err == nil {
				hi, err = strconv.Atoi(strings.TrimSpace(b))
			}
		default:
			lo, err = strconv.Atoi(part)
			hi = lo
		}
		if err != nil || lo < 100 || hi > 599 || lo > hi {
			return nil, fmt.Errorf("%q is not a status, a range or a class within 100-599 (such as 404, 200-299 or 2xx)", part)
		}
		out = append(out, [2]int{lo, hi})
	}
	return out, nil
}

// ParseMaxFailures reads --max-failures: a share of the requests in
// percent (1%, 0.5%, 0% for none), or a count (5).
func ParseMaxFailures(s string) (percent bool, share float64, count int, err error) {
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		share, err = strconv.ParseFloat(p, 64)
		if err != nil || !(share >= 0 && share <= 100) {
			return false, 0, 0, errors.New("want a share of the requests from 0% to 100% (such as 1% or 0.5%), or a count (such as 5)")
		}
		return true, share, 0, nil
	}
	count, err = strconv.Atoi(strings.TrimSpace(s))
	if err != nil || count < 0 {
		return false, 0, 0, errors.New("want a share of the requests from 0% to 100% (such as 1% or 0.5%), or a count (such as 5)")
	}
	return false, 0, count, nil
}

// accepts says whether a response of status code is a success.
func (f FailureRule) accepts(code int) bool {
	return slices.ContainsFunc(f.Accept, func(r [2]int) bool { return code >= r[0] && code <= r[1] })
}

// allowed is how many of n requests may fail.
func (f FailureRule) allowed(n int) int {
	if f.Percent {
		// The largest count whose share is at most MaxPercent, kept from
		// rounding below it (1% of 300 is 3).
		return int(math.Floor(f.MaxPercent*float64(n)/100 + 1e-9))
	}
	return f.MaxCount
}

// targetFailures are the requests of h that failed by f and what each kind
// of them was, in words ("20 responses 404", "3 connection errors").
func targetFailures(h report.HTTPCounts, f FailureRule) (int, []string) {
	n := h.Timeouts + h.ConnectionErrors + h.Failed
	var kinds []string
	codes := make([]int, 0, len(h.Statuses))
	for code := range h.Statuses {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	for _, code := range codes {
		if c := h.Statuses[code]; !f.accepts(code) && c > 0 {
			n += c
			kinds = append(kinds, fmt.Sprintf("%s %d", words.N(c, "response"), code))
		}
	}
	for _, k := range []struct {
		n    int
		what string
	}{{h.ConnectionErrors, "connection error"}, {h.Timeouts, "timeout"}, {h.Failed, "failed request"}} {
		if k.n > 0 {
			kinds = append(kinds, words.N(k.n, k.what))
		}
	}
	return n, kinds
}

// TargetFailure is why a latency --target run fails by f, "" when it
// passes: no request succeeded, or more failed than --max-failures
// allows. The requests the run's interruption cancelled are no one's.
func TargetFailure(r *report.Latency, f FailureRule) string {
	if r == nil || r.TargetResult == nil {
		return ""
	}
	h := r.HTTP
	requests := h.Requests - h.Cancelled
	failed, kinds := targetFailures(h, f)
	what := ""
	if len(kinds) > 0 {
		what = " (" + strings.Join(kinds, ", ") + ")"
	}
	allowed := f.allowed(requests)
	if requests == 0 {
		return "no request was sent"
	}
	msg := fmt.Sprintf("%d of %s failed%s", failed, words.N(requests, "request"), what)
	if failed > allowed {
		msg += fmt.Sprintf(", more than --max-failures %s allows (%d)", f.MaxSpec, allowed)
	}
	if failed < requests {
		if failed > allowed {
			return msg
		}
		return ""
	}
	// A client error may be what the server means (a 404 for a path it
	// does not know): say how to count it a success.
	hint := ""
	for code := range h.Statuses {
		if code < 500 && !f.accepts(code) {
			hint = "; --accept-status says which statuses are a success (now " + f.AcceptSpec + ")"
		}
	}
	return "no request succeeded: " + msg + hint
}

// FailedRunWarning begins the warning of a --target run that failed by
// its rule (the command's error says the same).
const FailedRunWarning = "failed run: "

// JudgeTarget records in r the rule it is judged by and its counts of
// failures, with a warning when it fails (TargetFailure).
func JudgeTarget(r *report.Latency, f FailureRule) {
	if r == nil || r.TargetResult == nil {
		return
	}
	if r.Config.TargetConfig != nil {
		r.Config.AcceptStatus, r.Config.MaxFailures = f.AcceptSpec, f.MaxSpec
	}
	failed, _ := targetFailures(r.HTTP, f)
	allowed := f.allowed(r.HTTP.Requests - r.HTTP.Cancelled)
	r.HTTP.Failures, r.HTTP.FailuresAllowed = &failed, &allowed
	if why := TargetFailure(r, f); why != "" {
		r.AddWarning(report.Warning{Kind: report.KindFailedRun, Text: FailedRunWarning + why})
		return
	}
	// Failures within --max-failures: the run passes, and says what the
	// figures hold. Here, not where the requests were counted, as only the
	// rule knows which statuses are failures (an accepted 404 is none).
	if failed > 0 {
		_, kinds := targetFailures(r.HTTP, f)
		r.AddWarning(report.Warn(report.KindFailedRequests, "failed requests: %d of %s failed (%s), within --max-failures %s (%d); the percentiles cover the %s, of any status",
			failed, words.N(r.HTTP.Requests-r.HTTP.Cancelled, "request"), strings.Join(kinds, ", "), f.MaxSpec, allowed, words.N(r.HTTP.Responses, "response")))
	}
}
