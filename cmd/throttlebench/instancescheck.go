package main

import (
	"strings"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// checkInstances refuses, before anything is made, what cannot go with
// --instances or without it.
func (o *latencyOptions) checkInstances(onInstances bool, changed func(string) bool) error {
	if !onInstances {
		if o.summary {
			return config.Usagef("summary", "--summary applies only with --instances: it leaves out their requests[]")
		}
		return nil
	}
	spec := *o.run.values["instances"]
	if o.plot != "" && !o.run.trace && o.run.traceOut == "" {
		return config.Usagef("plot", "--plot %q does not apply with --instances but with --trace (the timeline): compare the instances' rows in the table", o.plot)
	}
	if o.run.mode == runner.ModeCurrent {
		return config.Usagef("instances", "--instances %q cannot be used with --cgroup current: every instance needs a slice of its own", spec)
	}
	if changed("concurrency") {
		perRequest := true
		for _, m := range strings.Split(spec, ",") {
			perRequest = perRequest && strings.TrimSpace(m) == "per-request"
		}
		if perRequest {
			return config.Usagef("concurrency", "--concurrency %q does not apply to --instances per-request, whose instances serve one request at a time each: it applies to shared and pool:N",
				*o.run.values["concurrency"])
		}
	}
	return nil
}
