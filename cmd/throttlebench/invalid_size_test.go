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
		{with("--burst", "0,fast"), []string{`invalid --burst "0,fast"`, "0,20ms,50ms"}},
		{with("--burst", "2s"), []string{`invalid --burst "2s"`, "from 0 to 1s"}},
		{with("--duration", "5s"), []string{`--duration "5s" is a window's length in size`, "--window"}},
		{with("--instances", "shared"), []string{`--instances "shared" applies to latency --instances`}},
		{with("--workload", "spin"), []string{`--workload "spin" is the closed loop's`}},
		{with("--window", "5"), []string{`invalid --window "5"`, "a duration"}},
		{[]string{"size", "--slo", "mean<=1.2x", "--window", "2s"}, []string{`invalid --window "2s"`, "number of iterations"}},
		{with("--cpus-min", "0.8", "--cpus-max", "0.4"), []string{"--cpus-min", "0.8"}},
		{with("--step", "0"), []string{`--step "0"`}},
		{with("--confidence", "1"), []string{"invalid --confidence 1", "below 1"}},
		{with("--confidence", "0.2"), []string{"invalid --confidence 0.2"}},
		{with("--busy", "ignore"), []string{`invalid --busy "ignore"`, "refuse, count"}},
		{with("--budget", "-1s"), []string{"invalid --budget -1s"}},
		{with("--cgroup", "current"), []string{`--cgroup "current" cannot be used with size`}},
		{with("--format", "csv"), []string{`--format "csv"`, "text, json"}},
		{with("--", "true"), []string{`unexpected command "true"`, "closed loop"}},
		{[]string{"size", "--slo", "mean<=1.2x", "--", "/nonexistent/cmd"}, []string{`invalid command "/nonexistent/cmd"`}},
		{with("-o", f.svgDir), []string{"--output"}},
		{with("--target", "http://127.0.0.1:8080/"), []string{`--target "http://127.0.0.1:8080/" needs --serve -- CMD with size`}},
		{with("--target", "ftp://x/", "--serve", "--", "true"), []string{`invalid --target "ftp://x/"`}},
		{with("--connections", "4"), []string{"--connections", "applies only with --target URL"}},
		{[]string{"size", "--slo", "p99<=50ms", "--target", "http://127.0.0.1:{port}/", "--serve", "--work", "5ms", "--", "true"}, []string{"--work", "not to --target"}},
		{with("--plot", "size.txt"), []string{`invalid --plot "size.txt"`, ".svg or .png"}},
	}
}
