package main

// invalidSizeCases are size's invalid inputs (TestInvalidInputExits2): each
// refused before the unlimited arm runs.
func invalidSizeCases(f invalidFiles) []invalidCase {
	slo := []string{"size", "--slo", "p99<=50ms", "--rate", "100"}
	with := func(args ...string) []string { return append(append([]string{}, slo...), args...) }
	return []invalidCase{
		{[]string{"size", "--rate", "100"}, []string{"--slo is required", "p99<=50ms"}},
		{[]string{"size", "--slo", "p99<=fast", "--rate", "100"}, []string{`--slo "p99<=fast"`}},
		{[]string{"size", "--slo", "p95<=50ms", "--rate", "100"}, []string{`--slo "p95<=50ms"`}},
		{with("--cpus", "0.5"), []string{`--cpus "0.5" is what size searches`, "--cpus-min and --cpus-max"}},
		{with("--quota", "50ms"), []string{`--quota "50ms" is what size searches`}},
		{with("--burst", "0,fast"), []string{`invalid --burst "0,fast": "fast" is not a duration such as 10ms`}},
		// --burst is latency's: lists and ranges, each value checked alike;
		// one no level's quota holds is refused before the unlimited arm.
		{with("--burst", "0,2000s", "--period", "1s"), []string{`invalid --burst "0,2000s": 33m20s is above the quota of every level`, "the kernel takes a burst up to the quota"}},
		{with("--burst", "0,50ms", "--cpus-min", "0.2", "--cpus-max", "0.4"), []string{`invalid --burst "0,50ms": 50ms is above the quota of every level, at most 40ms per 100ms period (--cpus-max 0.4)`}},
		{with("--burst", "-5ms"), []string{`invalid --burst "-5ms": must not be negative`}},
		{with("--burst", "20"), []string{`invalid --burst "20": a duration needs a unit: 20ms?`}},
		{with("--burst", "0:20:5ms"), []string{`invalid --burst "0:20:5ms": 20 needs a unit: 20ms?`}},
		{with("--duration", "5s"), []string{`--duration "5s" is a window's length in size`, "--window"}},
		{with("--instances", "shared"), []string{`--instances "shared" applies to latency --instances`}},
		{with("--workload", "spin"), []string{`--workload "spin" is the closed loop's`}},
		{with("--window", "5"), []string{`invalid --window "5": a duration needs a unit: 5ms?`}},
		{with("--window", "1ms"), []string{`invalid --window "1ms"`, "10ms–24h0m0s"}},
		{[]string{"size", "--slo", "mean<=1.2x", "--window", "2s"}, []string{`invalid --window "2s"`, "number of iterations"}},
		{with("--cpus-min", "0.8", "--cpus-max", "0.4"), []string{"--cpus-min", "0.8"}},
		{with("--step", "0"), []string{`--step "0"`}},
		// Issue 46: the grid, refused before anything runs, and CPUs as
		// Kubernetes writes them (500m).
		{with("--cpus-min", "800m", "--cpus-max", "400m"), []string{"invalid --cpus-min 0.8: not below --cpus-max 0.4; want the low end below the high one"}},
		{with("--cpus-min", "5m"), []string{`invalid --cpus-min "5m": a quota of 500µs per 100ms period, below the kernel's 1ms minimum`}},
		{with("--cpus-min", "half"), []string{`invalid --cpus-min "half": want a number of CPUs above 0 and at most 1024, such as 0.5 or 500m`}},
		{with("--cpus-min", "1024"), []string{"invalid --cpus-min 1024: not below the default --cpus-max", "give --cpus-max too"}},
		{with("--cpus-max", "10m"), []string{"invalid --cpus-max 0.01: not above the default --cpus-min, at least 0.01 CPUs"}},
		{with("--step", "2", "--cpus-min", "0.2", "--cpus-max", "1"), []string{`invalid --step "2": wider than the range from 0.2 to 1 CPUs (0.8), so no grid; want a step of at most 0.8`}},
		{with("--step", "50%", "--cpus-min", "500m", "--cpus-max", "600m"), []string{`invalid --step "50%": wider than the range from 0.5 to 0.6 CPUs (20% above the low end)`, "at most 20%"}},
		{with("--step", "150%"), []string{`invalid --step "150%": want a percentage above 0 and at most 100`, "or a number of CPUs such as 0.05 or 50m"}},
		{with("--step", "0m"), []string{`invalid --step "0m": want a number of CPUs above 0`}},
		{with("--step", "0.01", "--cpus-min", "0.01", "--cpus-max", "20"), []string{`invalid --step "0.01": more than 1000 levels from 0.01 to 20 CPUs`}},
		// Issue 46: a bare number where a unit is wanted says which.
		{with("--window", "1500"), []string{`invalid --window "1500": a duration needs a unit: 1500ms?`}},
		{[]string{"size", "--slo", "p99<=50ms", "--work", "4"}, []string{`invalid --work "4": a duration needs a unit: 4ms?`}},
		{with("--wait", "2"), []string{`invalid --wait "2": a duration needs a unit: 2ms?`}},
		{with("--period", "100"), []string{`invalid --period "100": a duration needs a unit: 100ms?`}},
		{[]string{"size", "--slo", "mean<=1.2x", "--period", "250", "--", "true"}, []string{`invalid --period "250": a duration needs a unit: 250ms?`}},
		{[]string{"size", "--slo", "p99<=50", "--rate", "100"}, []string{`invalid --slo "p99<=50": a bound needs a unit: 50ms?`}},
		{[]string{"size", "--slo", "p99<=1.5", "--rate", "100"}, []string{`invalid --slo "p99<=1.5": a bound needs a unit: 1.5ms or 1.5x?`}},
		{[]string{"size", "--slo", "p99 <= 50", "--rate", "100"}, []string{`invalid --slo "p99 <= 50": a bound needs a unit: 50ms?`}},
		{[]string{"size", "--slo", "p99<=0ms", "--rate", "100"}, []string{`invalid --slo "p99<=0ms": want a bound above 0`}},
		{[]string{"size", "--slo", "p99>=50ms", "--rate", "100"}, []string{`invalid --slo "p99>=50ms": an SLO bounds p99 from above; use <= (or <)`}},
		{[]string{"size", "--slo", "p99.9<=50ms", "--", "true"}, []string{`invalid --slo "p99.9<=50ms": "p99.9" is no statistic of durations (a command, the built-in closed loop); want one of mean, p50, p90, p95, p99`}},
		{[]string{"size", "--slo", "mean<=5ms", "--rate", "100"}, []string{`invalid --slo "mean<=5ms": "mean" is no statistic of response times (the open loop, --target); want one of p50, p90, p99, p99.9`}},
		{with("--confidence", "1"), []string{"invalid --confidence 1", "below 1"}},
		{with("--confidence", "0.2"), []string{"invalid --confidence 0.2"}},
		{with("--busy", "ignore"), []string{`invalid --busy "ignore"`, "refuse, count"}},
		{with("--budget", "-1s"), []string{"invalid --budget -1s"}},
		{with("--cgroup", "current"), []string{`--cgroup "current" cannot be used with size`}},
		{with("--format", "csv"), []string{`--format "csv"`, "text, json, gobench, github-action-benchmark, bmf"}},
		{with("--", "true"), []string{`unexpected command "true"`, "closed loop"}},
		{[]string{"size", "--slo", "mean<=1.2x", "--work", "5ms", "--", "true"}, []string{`unexpected command "true"`, "an open-loop parameter (--rate, --work, …) was given"}},
		{[]string{"size", "--slo", "mean<=1.2x", "--", "/nonexistent/cmd"}, []string{`invalid command "/nonexistent/cmd"`}},
		{with("-o", f.svgDir), []string{"--output"}},
		{with("--target", "http://127.0.0.1:8080/"), []string{`--target "http://127.0.0.1:8080/" needs --serve -- CMD with size`}},
		{with("--target", "ftp://x/", "--serve", "--", "true"), []string{`invalid --target "ftp://x/"`}},
		{with("--connections", "4"), []string{"--connections", "applies only with --target URL"}},
		{[]string{"size", "--slo", "p99<=50ms", "--target", "http://127.0.0.1:{port}/", "--serve", "--work", "5ms", "--", "true"}, []string{"--work", "not to --target"}},
		{with("--plot", "size.txt"), []string{`invalid --plot "size.txt"`, ".svg or .png"}},
	}
}
