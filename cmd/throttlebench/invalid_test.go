package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every invalid or hostile input, across all commands, in one table: exit 2,
// nothing on stdout, and exactly one line on stderr naming the flag (or
// argument), the value and what is allowed. Validation happens before any
// cgroup is touched, so these run anywhere; the integration suite checks
// that such input creates nothing.
func TestInvalidInputExits2(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling))
	base, reg := fixture("base.jsonl"), fixture("regression.jsonl")
	svgDir := filepath.Join(dir, "a-directory.svg")
	emptyTrace, busyTrace := filepath.Join(dir, "empty.json"), filepath.Join(dir, "busy.json")
	require.NoError(t, os.WriteFile(emptyTrace, []byte(`{"interval_ms":100,"usage_cpus":[]}`), 0o644))
	require.NoError(t, os.WriteFile(busyTrace, []byte(`{"interval_ms":100,"usage_cpus":[0.5]}`), 0o644))
	require.NoError(t, os.Mkdir(svgDir, 0o755))
	emptyDir, brokenArchive := filepath.Join(dir, "empty-dir"), filepath.Join(dir, "broken.tar.gz")
	require.NoError(t, os.Mkdir(emptyDir, 0o755))
	require.NoError(t, os.WriteFile(brokenArchive, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'x'}, 0o644))

	cases := []struct {
		args []string
		want []string // substrings of the one error line
	}{
		// run: counts and their bounds
		{[]string{"run", "--workers", "0"}, []string{"--workers 0", "between 1 and 1024"}},
		{[]string{"run", "--workers", "-3"}, []string{"--workers -3"}},
		{[]string{"run", "--workers", "two"}, []string{`--workers "two"`, "whole number between 1 and 1024"}},
		{[]string{"run", "--workers", "99999999999999999999"}, []string{`--workers "99999999999999999999"`, "between 1 and 1024"}},
		{[]string{"run", "--batch", "0"}, []string{"--batch 0", "between 1"}},
		{[]string{"run", "--batch", "1.5"}, []string{`--batch "1.5"`, "whole number"}},
		{[]string{"run", "--iterations", "0"}, []string{"--iterations 0"}},
		{[]string{"run", "--iterations", "1e12"}, []string{`--iterations "1e12"`, "between 1 and 1000000"}},
		{[]string{"run", "--iterations", "2000000"}, []string{"--iterations 2000000", "between 1 and 1000000"}},
		{[]string{"run", "--warmup", "-1"}, []string{"--warmup -1", "between 0"}},
		{[]string{"run", "--cost", "3"}, []string{"--cost 3", "between 4 and 31"}},
		{[]string{"run", "--cost", "32"}, []string{"--cost 32"}},
		// run: CFS limits
		{[]string{"run", "--period", "500us"}, []string{`--period "500us"`, "1ms and 1s"}},
		{[]string{"run", "--period", "2s"}, []string{`--period "2s"`, "1ms and 1s"}},
		{[]string{"run", "--period", "fast"}, []string{`--period "fast"`, "duration"}},
		{[]string{"run", "--period", "1500ns"}, []string{`--period "1500ns"`, "microseconds"}},
		{[]string{"run", "--quota", "500us"}, []string{`--quota "500us"`, "at least 1ms"}},
		{[]string{"run", "--quota", "-5ms"}, []string{`--quota "-5ms"`, "at least 1ms"}},
		{[]string{"run", "--quota", "lots"}, []string{`--quota "lots"`, "or max"}},
		{[]string{"run", "--quota", "1000s"}, []string{`--quota "1000s"`, "at most 1024 CPUs' worth, 1m42.4s per 100ms period"}},
		{[]string{"run", "--quota", "99999999999999h"}, []string{`--quota "99999999999999h"`, "duration"}},
		{[]string{"run", "--cpus", "0"}, []string{`--cpus "0"`, "above 0"}},
		{[]string{"run", "--cpus", "-1"}, []string{`--cpus "-1"`}},
		{[]string{"run", "--cpus", "half"}, []string{`--cpus "half"`}},
		{[]string{"run", "--cpus", "NaN"}, []string{`--cpus "NaN"`, "above 0 and at most 1024"}},
		{[]string{"run", "--cpus", "Inf"}, []string{`--cpus "Inf"`, "at most 1024"}},
		{[]string{"run", "--cpus", "1e308"}, []string{`--cpus "1e308"`, "at most 1024"}},
		{[]string{"run", "--cpus", "0.005"}, []string{`--cpus "0.005"`, "1ms minimum"}},
		{[]string{"run", "--cpus", "0.5", "--quota", "50ms"}, []string{`--cpus "0.5" conflicts with --quota "50ms"`}},
		{[]string{"run", "--cpus", "0.5\nwith a second line", "--quota", "50ms"}, []string{`--cpus "0.5\nwith a second line" conflicts`}},
		// Found by FuzzLimitFlags: an unquoted value broke the one line.
		{[]string{"run", "--cpus", "0", "--quota", "\r"}, []string{`--cpus "0" conflicts with --quota "\r"`}},
		{[]string{"run", "--quota", "20ms", "--burst", "30ms"}, []string{`--burst "30ms"`, "exceed the quota 20ms"}},
		{[]string{"run", "--burst", "5ms"}, []string{`--burst "5ms"`, "needs a quota"}},
		{[]string{"run", "--cpus", "0.5", "--burst", "-1ms"}, []string{`--burst "-1ms"`, "negative"}},
		// run: modes, policies, formats, files, time
		{[]string{"run", "--cgroup", "mine"}, []string{`--cgroup "mine"`, "auto, create, current"}},
		{[]string{"run", "--cgroup", "current", "--cpus", "0.5"}, []string{`--cpus "0.5" cannot be used with --cgroup current`}},
		{[]string{"run", "--cgroup", "current", "--parent", "/x"}, []string{`--parent "/x" cannot be used with --cgroup current`}},
		{[]string{"run", "--sonobuoy-results", "/nonexistent/results"}, []string{`--sonobuoy-results "/nonexistent/results"`, "no such file", "/tmp/sonobuoy/results by default"}},
		{[]string{"run", "--sonobuoy-results", base}, []string{`--sonobuoy-results "testdata/compare/base.jsonl": not a directory`}},
		{[]string{"run", "--sonobuoy-results", dir, "--format", "text"}, []string{`--format "text" cannot be used with --sonobuoy-results`}},
		{[]string{"run", "--sonobuoy-results", dir, "-o", filepath.Join(dir, "x.json")}, []string{"--output", "conflicts with --sonobuoy-results"}},
		{[]string{"run", "--cgroup-version", "3"}, []string{`--cgroup-version "3"`, "auto, 1, 2"}},
		{[]string{"run", "--gomaxprocs", "0"}, []string{`--gomaxprocs "0"`, "workers or runtime"}},
		{[]string{"run", "--gomaxprocs", "all"}, []string{`--gomaxprocs "all"`}},
		{[]string{"run", "--gomaxprocs", "1000000000"}, []string{`--gomaxprocs "1000000000"`, "between 1 and 1024"}},
		{[]string{"run", "--format", "yaml"}, []string{`--format "yaml"`, "json, text"}},
		{[]string{"run", "--workload", "sha"}, []string{`--workload "sha"`, "bcrypt"}},
		{[]string{"run", "--workload", "memtouch", "--memory", "old"}, []string{`--memory "old"`, "fresh, reuse"}},
		{[]string{"run", "--workload", "memtouch", "--buffer", "100"}, []string{"--buffer 100", "between 4096 and 1073741824"}},
		{[]string{"run", "--buffer", "2G"}, []string{`--buffer "2G"`, "whole number between 4096"}},
		{[]string{"run", "--buffer", "2147483648"}, []string{"--buffer 2147483648", "between 4096 and 1073741824"}},
		{[]string{"run", "--workload", "spin", "--units", "0"}, []string{"--units 0", "between 1"}},
		{[]string{"run", "--sleep-every", "0"}, []string{"--sleep-every 0", "between 1 and 1000000"}},
		{[]string{"run", "--sleep", "-1ms"}, []string{`--sleep "-1ms"`, "between 0 (no sleeps) and 1s"}},
		{[]string{"run", "--sleep", "2s"}, []string{`--sleep "2s"`, "1s"}},
		{[]string{"run", "--workers", "2", "--slow-workers", "3", "--sleep", "10ms"}, []string{"--slow-workers 3", "more than the 2 workers"}},
		{[]string{"run", "--slow-workers", "some"}, []string{`--slow-workers "some"`, "or all"}},
		{[]string{"sweep", "--memory", "fresh,old"}, []string{"--memory", "old"}},
		{[]string{"sweep", "--sleep-every", "0,5"}, []string{"--sleep-every 0"}},
		// run: placement
		{[]string{"run", "--cpuset", "0-"}, []string{`--cpuset "0-"`, "kernel's list format, such as 0-3,8"}},
		{[]string{"run", "--cpuset", "3-1"}, []string{`--cpuset "3-1"`, "CPU numbers 0–8191"}},
		{[]string{"run", "--cpuset", ""}, []string{`--cpuset ""`, "list format"}},
		{[]string{"run", "--cpuset", "a"}, []string{`--cpuset "a"`, "list format"}},
		{[]string{"run", "--cpuset", "8000-8191"}, []string{`--cpuset "8000-8191"`, "not among the CPUs this process may use"}},
		{[]string{"run", "--cpuset", "0,8191"}, []string{`--cpuset "0,8191"`, "CPU(s) 8191 are not among"}},
		{[]string{"run", "--cgroup", "current", "--cpuset", "0"}, []string{`--cpuset "0" cannot be used with --cgroup current`}},
		{[]string{"run", "--pin=maybe"}, []string{`--pin "maybe"`, "true or false"}},
		{[]string{"run", "--one-per-core=2"}, []string{`--one-per-core "2"`, "true or false"}},
		{[]string{"sweep", "--cpuset", "0-x"}, []string{`--cpuset "0-x"`, "list format"}},
		{[]string{"sweep", "--cpuset", "8191", "--cpus", "0.5,1"}, []string{`--cpuset "8191"`, "not among"}},
		{[]string{"sweep", "--cgroup", "current", "--cpuset", "0"}, []string{`--cpuset "0" cannot be used with --cgroup current`}},
		{[]string{"latency", "--cpuset", "8191"}, []string{`--cpuset "8191"`, "not among"}},
		{[]string{"latency", "--pin"}, []string{"unknown flag: --pin"}},
		{[]string{"run", "--output", "/nonexistent/dir/out.json"}, []string{`--output "/nonexistent/dir/out.json"`, "does not exist"}},
		{[]string{"run", "--output", "/dev/full"}, []string{`--output "/dev/full"`, "not a regular file"}},
		{[]string{"run", "-o", dir}, []string{"--output", "is a directory"}},
		{[]string{"run", "-o", dangling}, []string{"--output", "leads nowhere"}},
		{[]string{"run", "-o", "/proc/sys/kernel/hostname"}, []string{"--output", "kernel filesystem"}},
		{[]string{"run", "--timeout", "-1s"}, []string{"--timeout -1s", "between 0"}},
		{[]string{"run", "--timeout", "soon"}, []string{`--timeout "soon"`, "duration between 0 (no limit) and 720h"}},
		{[]string{"run", "--timeout", "9999999999999h"}, []string{`--timeout "9999999999999h"`, "720h"}},
		{[]string{"run", "--timeout", "1000h"}, []string{"--timeout 1000h", "720h"}},
		{[]string{"run", "--min-time", "-1s"}, []string{"--min-time -1s", "between 0 (off) and 1h"}},
		{[]string{"run", "--min-time", "2h"}, []string{"--min-time 2h0m0s", "between 0 (off) and 1h"}},
		{[]string{"run", "--min-time", "long"}, []string{`--min-time "long"`, "duration between 0 (off) and 1h0m0s"}},
		{[]string{"run", "--no-such-flag"}, []string{"unknown flag: --no-such-flag"}},
		{[]string{"run", "--cpus"}, []string{"flag needs an argument: --cpus"}},
		{[]string{"run", "extra-arg"}, []string{`unknown command "extra-arg"`}},
		// sweep
		{[]string{"sweep", "--cpus", "0.1:1:0"}, []string{`--cpus "0.1:1:0"`, "step"}},
		{[]string{"sweep", "--cpus", "0.1,abc"}, []string{`--cpus "0.1,abc"`, `"abc" is not a number`}},
		{[]string{"sweep", "--cpus", "0,0.5"}, []string{`--cpus "0"`, "above 0"}},
		{[]string{"sweep", "--cpus", "0.01:1:0.0001"}, []string{`--cpus "0.01:1:0.0001"`, "more than 1000 values"}},
		{[]string{"sweep", "--period", "1ms:2s:*2"}, []string{`--period "1.024s"`, "1ms and 1s"}},
		{[]string{"sweep", "--period", "1ms:1s:*1"}, []string{`--period "1ms:1s:*1"`, "above 1"}},
		{[]string{"sweep", "--workers", "0:4:1"}, []string{"--workers 0"}},
		{[]string{"sweep", "--workers", "1,x"}, []string{`--workers "1,x"`, "whole number"}},
		{[]string{"sweep", "--cost", "3,4"}, []string{"--cost 3"}},
		{[]string{"sweep", "--gomaxprocs", "all"}, []string{`--gomaxprocs "all"`}},
		{[]string{"sweep", "--quota", "10ms", "--cpus", "0.5"}, []string{"conflicts"}},
		{[]string{"sweep", "--format", "xml"}, []string{`--format "xml"`, "csv, markdown, gobench"}},
		{[]string{"sweep", "--plot", "out.pdf"}, []string{`--plot "out.pdf"`, ".svg or .png"}},
		{[]string{"sweep", "--plot", "/nonexistent/x.svg"}, []string{`--plot "/nonexistent/x.svg"`, "does not exist"}},
		{[]string{"sweep", "--cgroup", "current", "--cpus", "0.5,1"}, []string{"cannot be used with --cgroup current"}},
		{[]string{"sweep", "--cpus", "0.01:1:0.001", "--workers", "1:1000:1"}, []string{"--max-configs 1000", "991000 configurations", "years by the CFS model", "--max-configs 991000"}},
		{[]string{"sweep", "--cpus", "0.5,1", "--min-time", "-5s"}, []string{"--min-time -5s", "between 0 (off) and 1h"}},
		{[]string{"sweep", "--max-configs", "0"}, []string{"--max-configs 0", "between 1 and 1000000"}},
		{[]string{"sweep", "--max-configs", "1e9"}, []string{`--max-configs "1e9"`, "whole number"}},
		{[]string{"sweep", "--quiet=maybe"}, []string{`--quiet "maybe"`, "true or false"}},
		// sweep --from: shows results, runs nothing
		{[]string{"sweep", "--from", base, "--cpus", "0.5"}, []string{`--cpus "0.5" cannot be used with --from`, "runs nothing"}},
		{[]string{"sweep", "--from", base, "--emit", "kubernetes"}, []string{`--emit "kubernetes" cannot be used with --from`}},
		{[]string{"sweep", "--from", "/nonexistent/results.json"}, []string{`invalid --from "/nonexistent/results.json": no such file or directory`}},
		{[]string{"sweep", "--from", fixture("gobench.txt")}, []string{`invalid --from "testdata/compare/gobench.txt": not a throttlebench result`}},
		{[]string{"sweep", "--from", base, "--format", "yaml"}, []string{`--format "yaml"`, "json, text, csv"}},
		{[]string{"sweep", "--from", base, "--plot", "x.pdf"}, []string{`--plot "x.pdf"`, ".svg or .png"}},
		// sweep --emit: what a pod cannot express is refused, saying why and what to do instead
		{[]string{"sweep", "--emit", "helm", "--cpus", "1"}, []string{`--emit "helm"`, "want one of kubernetes, sonobuoy"}},
		{[]string{"sweep", "--emit", "kubernetes"}, []string{"--emit kubernetes needs --cpus", "--cpus 0.25,0.5,1"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--period", "10ms"}, []string{`--period "10ms" cannot be emitted`, "kubelet's (cpuCFSQuotaPeriod, 100ms by default)", "drop --period"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--period", "10ms,20ms"}, []string{`--period "10ms,20ms" cannot be emitted`}},
		{[]string{"sweep", "--emit", "kubernetes", "--quota", "50ms"}, []string{`--quota "50ms" cannot be emitted`, "give the limit as --cpus"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--burst", "0,10ms"}, []string{`--burst "0,10ms" cannot be emitted`, "no CFS burst setting", "drop --burst"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--cgroup", "create"}, []string{`--cgroup "create" cannot be emitted`, "--cgroup current"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--cpuset", "0"}, []string{`--cpuset "0" cannot be emitted`, "CPU manager"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--parent", "/x"}, []string{`--parent "/x" cannot be emitted`}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--plot", "x.svg"}, []string{`--plot "x.svg" cannot be emitted`, "sweep --from results.json --plot"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--format", "csv"}, []string{`--format "csv" cannot be emitted`, "sweep --from results.json --format"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.1234"}, []string{`--cpus "0.1234" for --emit`, "whole millicores"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--per-node"}, []string{"--per-node needs the nodes", "--nodes-from FILE"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--nodes", "a"}, []string{`--nodes "a" applies with --per-node`}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--per-node", "--nodes", "a,Node_B"}, []string{`--nodes "a,Node_B"`, `node "Node_B"`, "lower-case letters"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--per-node", "--nodes", ","}, []string{`--nodes ","`, "no node named"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--per-node", "--nodes", "a", "--nodes-from", "x"}, []string{`--nodes "a" conflicts with --nodes-from "x"`}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--per-node", "--nodes-from", "/nonexistent/nodes.txt"}, []string{`--nodes-from "/nonexistent/nodes.txt"`, "no such file"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--node-selector", "pool"}, []string{`--node-selector "pool"`, "key=value"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--node-selector", "pool=a b"}, []string{`--node-selector "pool=a b"`, "label value"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--image", ""}, []string{`--image ""`, "image reference"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--pod-memory", "1Ki"}, []string{`--pod-memory "1Ki"`, "at least 32Mi"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--pod-memory", "lots"}, []string{`--pod-memory "lots"`, "such as 256Mi"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--workload", "memtouch", "--workers", "512"}, []string{"--pod-memory 256Mi", "--workers 512", "give --pod-memory 576Mi"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--ttl", "10s"}, []string{"--ttl 10s", "between 1m and 720h0m0s", "takes its pod's log with it"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5", "--sweep-id", "Big_ID"}, []string{`--sweep-id "Big_ID"`, "lower-case letters"}},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.25,0.5", "--per-node", "--nodes", "a,b", "--max-configs", "3"}, []string{"--max-configs 3", "2 configurations on 2 nodes are 4 Jobs"}},
		{[]string{"sweep", "--emit", "sonobuoy", "--cpus", "0.5", "--per-node", "--nodes", "a"}, []string{"--per-node applies to --emit kubernetes", "runs on every node already", "--node-selector"}},
		{[]string{"sweep", "--emit", "sonobuoy", "--cpus", "0.5", "--ttl", "1h"}, []string{"--ttl applies to --emit kubernetes"}},
		{[]string{"sweep", "--emit", "sonobuoy", "--cpus", "0.5,1"}, []string{"one plugin file per configuration (2 here): give --output a directory"}},
		{[]string{"sweep", "--emit", "sonobuoy", "--cpus", "0.5,1", "-o", base}, []string{`--output "testdata/compare/base.jsonl"`, "into a directory; this is a file"}},
		{[]string{"sweep", "--emit", "sonobuoy", "--cpus", "0.5,1", "-o", "/nonexistent/plugins"}, []string{`--output "/nonexistent/plugins"`, "does not exist"}},
		{[]string{"sweep", "--cpus", "0.5", "--image", "x"}, []string{"--image applies only with --emit (kubernetes or sonobuoy)"}},
		{[]string{"sweep", "--cpus", "0.5", "--per-node"}, []string{"--per-node applies only with --emit (kubernetes or sonobuoy)"}},
		// latency: the open loop's parameters
		{[]string{"latency", "--rate", "0"}, []string{`--rate "0"`, "above 0 and at most 1000000"}},
		{[]string{"latency", "--rate", "-1"}, []string{`--rate "-1"`, "above 0"}},
		{[]string{"latency", "--rate", "abc"}, []string{`--rate "abc"`, `"abc" is not a number`}},
		{[]string{"latency", "--rate", "1e7"}, []string{`--rate "10000000"`, "at most 1000000"}}, // an axis: the value as expanded
		{[]string{"latency", "--arrivals", "burst"}, []string{`--arrivals "burst"`, "fixed, poisson, onoff"}},
		{[]string{"latency", "--arrivals", "poisson,fixed"}, []string{`--arrivals "poisson,fixed"`, "fixed, poisson, onoff"}},
		{[]string{"latency", "--arrivals", "fixed", "--on", "10ms"}, []string{`--on "10ms" applies only to --arrivals onoff (--arrivals is fixed)`}},
		{[]string{"latency", "--off", "1s"}, []string{`--off "1s" applies only to --arrivals onoff (--arrivals is poisson)`}},
		{[]string{"latency", "--arrivals", "onoff", "--on", "0s"}, []string{`--on "0s"`, "between 1ns and 1h0m0s"}},
		{[]string{"latency", "--work", "-1ms"}, []string{`--work "-1ms"`, "between 0s and 10s"}},
		{[]string{"latency", "--work", "11s"}, []string{`--work "11s"`, "between 0s and 10s"}},
		{[]string{"latency", "--work", "1ms,x"}, []string{`--work "1ms,x"`, `"x" is not a duration`}},
		{[]string{"latency", "--wait", "11s"}, []string{`--wait "11s"`, "between 0s and 10s"}},
		{[]string{"latency", "--queue", "-1"}, []string{"--queue -1", "between 0 and 10000000"}},
		{[]string{"latency", "--queue", "1e3"}, []string{`--queue "1e3"`, "whole number between 0 and 10000000"}},
		{[]string{"latency", "--duration", "5ms"}, []string{`--duration "5ms"`, "between 10ms and 24h0m0s"}},
		{[]string{"latency", "--duration", "25h"}, []string{`--duration "25h"`, "between 10ms and 24h0m0s"}},
		{[]string{"latency", "--seed", "-1"}, []string{`--seed "-1"`, "whole number between 0 and 18446744073709551615"}},
		{[]string{"latency", "--seed", "1,2"}, []string{`--seed "1,2"`, "whole number"}},
		{[]string{"latency", "--workers", "0"}, []string{"--workers 0", "between 1 and 1024"}},
		// latency: lists and ranges, checked whole before anything runs
		{[]string{"latency", "--rate", "10:1:0"}, []string{`--rate "10:1:0"`, "stop 1 is below start 10"}},
		{[]string{"latency", "--rate", "100:200:0"}, []string{`--rate "100:200:0"`, `step "0" must be above 0`}},
		{[]string{"latency", "--rate", "0,100"}, []string{`--rate "0"`, "above 0"}},
		{[]string{"latency", "--rate", "1:100000000:*10"}, []string{`--rate "10000000"`, "at most 1000000"}},
		{[]string{"latency", "--max-configs", "0"}, []string{"--max-configs 0", "between 1 and 1000000"}},
		// latency: a single configuration that cannot be is bad input, as in run
		{[]string{"latency", "--quota", "20ms", "--burst", "30ms"}, []string{`--burst "30ms"`, "exceed the quota 20ms"}},
		{[]string{"latency", "--burst", "5ms"}, []string{`--burst "5ms"`, "needs a quota"}},
		{[]string{"latency", "--cpus", "0.005"}, []string{`--cpus "0.005"`, "1ms minimum"}},
		{[]string{"latency", "--rate", "1000000", "--duration", "11s"}, []string{"--rate 1e+06 with --duration 11s", "11000000 requests, at most 10000000"}},
		{[]string{"latency", "--rate", "0.01", "--duration", "10ms"}, []string{"--rate 0.01 with --duration 10ms", "no request would arrive"}},
		// latency: settings
		{[]string{"latency", "--format", "gobench"}, []string{`--format "gobench"`, "json, text, csv, markdown"}},
		{[]string{"latency", "--plot", "out.pdf"}, []string{`--plot "out.pdf"`, ".svg or .png"}},
		{[]string{"latency", "--plot", "/nonexistent/x.svg"}, []string{`--plot "/nonexistent/x.svg"`, "does not exist"}},
		{[]string{"latency", "--cgroup", "current", "--cpus", "0.5"}, []string{`--cpus "0.5" cannot be used with --cgroup current`}},
		{[]string{"latency", "--cgroup", "current", "--burst", "0,100ms"}, []string{`--burst "0,100ms" cannot be used with --cgroup current`}},
		{[]string{"latency", "-o", "/dev/full"}, []string{`--output "/dev/full"`, "not a regular file"}},
		{[]string{"latency", "--batch", "5"}, []string{"unknown flag: --batch"}},
		{[]string{"latency", "extra-arg"}, []string{`unknown command "extra-arg"`}},
		// latency --instances, and --arrivals once
		{[]string{"latency", "--instances", "pool:0"}, []string{`--instances "pool:0"`, "pool:N with N a whole number between 1 and 256"}},
		{[]string{"latency", "--instances", "pool:x"}, []string{`--instances "pool:x"`, "pool:N"}},
		{[]string{"latency", "--instances", "lambda"}, []string{`--instances "lambda"`, "want per-request, shared or pool:N"}},
		{[]string{"latency", "--instances", "shared", "--cpuset", "0"}, []string{`--cpuset "0" does not apply with --instances`}},
		{[]string{"latency", "--instances", "shared,pool:0"}, []string{`--instances "pool:0"`}},
		{[]string{"latency", "--instances", "shared", "--concurrency", "0"}, []string{"--concurrency 0", "between 1 and 1000"}},
		{[]string{"latency", "--instances", "per-request", "--concurrency", "10"}, []string{`--concurrency "10" does not apply to --instances per-request`, "shared and pool:N"}},
		{[]string{"latency", "--instances", "shared", "--workers", "4"}, []string{`--workers "4" does not apply with --instances`}},
		{[]string{"latency", "--instances", "shared", "--queue", "4"}, []string{`--queue "4" does not apply with --instances`}},
		{[]string{"latency", "--instances", "shared", "--cgroup", "current"}, []string{`--instances "shared" cannot be used with --cgroup current`}},
		{[]string{"latency", "--instances", "shared", "--plot", "x.svg"}, []string{`--plot "x.svg" does not apply with --instances`}},
		{[]string{"latency", "--instances", "shared", "--init-memory", "2GiB"}, []string{`--init-memory "2GiB"`, "between 0 and 1GiB"}},
		{[]string{"latency", "--instances", "shared", "--init", "1m"}, []string{`--init "1m"`, "between 0s and 10s"}},
		{[]string{"latency", "--instances", "shared", "--keep-alive", "-1s"}, []string{`--keep-alive "-1s"`}},
		{[]string{"latency", "--instances", "shared", "--bill-granularity", "0s"}, []string{`--bill-granularity "0s"`}},
		{[]string{"latency", "--instances", "shared", "--arrivals", "once", "--count", "100001"}, []string{"--count 100001 with --instances", "at most 100000"}},
		{[]string{"latency", "--concurrency", "4"}, []string{`--concurrency "4" applies only with --instances`}},
		{[]string{"latency", "--init", "70ms"}, []string{`--init "70ms" applies only with --instances`}},
		{[]string{"latency", "--keep-alive", "1s"}, []string{`--keep-alive "1s" applies only with --instances`}},
		{[]string{"latency", "--summary"}, []string{"--summary applies only with --instances"}},
		{[]string{"latency", "--count", "10"}, []string{`--count "10" applies only to --arrivals once (--arrivals is poisson)`}},
		{[]string{"latency", "--arrivals", "once", "--count", "0"}, []string{"--count 0", "between 1 and 10000000"}},
		{[]string{"latency", "--arrivals", "once", "--rate", "5"}, []string{`--rate "5" does not apply to --arrivals once`}},
		{[]string{"latency", "--arrivals", "once", "--duration", "5s"}, []string{`--duration "5s" does not apply to --arrivals once`}},
		{[]string{"run", "--instances", "shared"}, []string{"unknown flag: --instances"}},
		// compare
		{[]string{"compare", base}, []string{"compare takes two result files, OLD and NEW; got 1 argument(s)"}},
		{[]string{"compare", base, reg, base}, []string{"got 3 argument(s)"}},
		{[]string{"compare", "--alpha", "0", base, reg}, []string{"--alpha 0", "between 0 and 1"}},
		{[]string{"compare", "--alpha", "1", base, reg}, []string{"--alpha 1", "such as 0.05"}},
		{[]string{"compare", "--alpha", "NaN", base, reg}, []string{"--alpha NaN"}},
		{[]string{"compare", "--alpha", "often", base, reg}, []string{`--alpha "often"`, "between 0 and 1"}},
		{[]string{"compare", "--threshold", "-1", base, reg}, []string{`--threshold "-1"`, "percentage ≥ 0"}},
		{[]string{"compare", "--threshold", "five", base, reg}, []string{`--threshold "five"`, "5 or 5%"}},
		{[]string{"compare", "--threshold", "Inf%", base, reg}, []string{`--threshold "Inf%"`}},
		{[]string{"compare", "--fail-on", "always", base, reg}, []string{`--fail-on "always"`, "regression, change, never"}},
		{[]string{"compare", "--format", "gobench", base, reg}, []string{`--format "gobench"`, "text, markdown, json"}},
		{[]string{"compare", "--match", "workload,cpus", base, reg}, []string{`--match "workload,cpus"`, "workload, cost, batch, workers, gomaxprocs, period, quota, burst, cpuset, pin, one-per-core, host, kernel, version, mode"}},
		{[]string{"compare", "--match", "", base, reg}, []string{`--match ""`}},
		{[]string{"compare", "--match", "workload,-node", base, reg}, []string{`--match "workload,-node"`, "+KEY and -KEY to change the default"}},
		{[]string{"compare", "--match", "+pod", base, reg}, []string{`--match "+pod"`}},
		{[]string{"compare", "--output", "/nonexistent/dir/x.txt", base, reg}, []string{`--output "/nonexistent/dir/x.txt"`, "does not exist"}},
		{[]string{"compare", "-o", "/dev/null", base, reg}, []string{`--output "/dev/null"`, "not a regular file"}},
		{[]string{"compare", "testdata/compare/missing.json", reg}, []string{`invalid OLD "testdata/compare/missing.json": no such file or directory`}},
		{[]string{"compare", base, "testdata/compare"}, []string{`invalid NEW "testdata/compare"`}},
		{[]string{"compare", base, fixture("gobench.txt")}, []string{`invalid NEW "testdata/compare/gobench.txt": not a throttlebench result: line 1`}},
		// Results whose durations are no durations: [-5,-1,0] once read as a
		// −10454.2% improvement and exited 0.
		{[]string{"compare", base, fixture("negative-durations.json")}, []string{`invalid NEW "testdata/compare/negative-durations.json": not a throttlebench result: line 1: durations_ms element 1 is -5: want a duration above 0 ms`}},
		{[]string{"compare", fixture("empty-durations.json"), base}, []string{`invalid OLD "testdata/compare/empty-durations.json"`, "no durations_ms: want one per measured iteration"}},
		{[]string{"compare", base, fixture("no-durations.json")}, []string{`invalid NEW "testdata/compare/no-durations.json"`, "a run result without durations_ms"}},
		{[]string{"compare", base, fixture("null-duration.json")}, []string{`invalid NEW "testdata/compare/null-duration.json"`, "durations_ms element 2 is null"}},
		// collect
		{[]string{"collect", "/nonexistent/pods.log"}, []string{`invalid input "/nonexistent/pods.log": no such file or directory`, "a log file, a results archive"}},
		{[]string{"collect", "-", "-"}, []string{"- (stdin) given 2 times"}},
		{[]string{"collect", "--node", "Node_A", "-"}, []string{`--node "Node_A"`, "lower-case letters"}},
		{[]string{"collect", "-o", "/dev/full", "-"}, []string{`--output "/dev/full"`, "not a regular file"}},
		{[]string{"collect", emptyDir}, []string{`invalid input "` + emptyDir + `"`, "no log files in it"}},
		{[]string{"collect", brokenArchive}, []string{`invalid input "` + brokenArchive + `"`, "not a readable Sonobuoy results archive"}},
		{[]string{"collect", "--format", "csv", "-"}, []string{"unknown flag: --format"}},
		// sample
		{[]string{"sample", "--interval", "500us"}, []string{`--interval "500us"`, "between 1ms and 10s"}},
		{[]string{"sample", "--interval", "20s"}, []string{`--interval "20s"`, "between 1ms and 10s"}},
		{[]string{"sample", "--interval", "often"}, []string{`--interval "often"`, "such as 100ms"}},
		{[]string{"sample", "--duration", "50ms"}, []string{`--duration "50ms"`, "0 (until Ctrl-C) or a duration between --interval 100ms and 24h0m0s"}},
		{[]string{"sample", "--interval", "1s", "--duration", "999ms"}, []string{`--duration "999ms"`, "--interval 1s"}},
		{[]string{"sample", "--duration", "25h"}, []string{`--duration "25h"`, "24h0m0s"}},
		{[]string{"sample", "--duration", "-1s"}, []string{`--duration "-1s"`}},
		{[]string{"sample", "--limit", "0"}, []string{`--limit "0"`, "above 0 and at most 1024"}},
		{[]string{"sample", "--limit", "NaN"}, []string{`--limit "NaN"`, "number of CPUs"}},
		{[]string{"sample", "--limit", "four"}, []string{`--limit "four"`, "such as 4 or 0.5"}},
		{[]string{"sample", "--target", "0"}, []string{`--target "0"`, "between 0 and 100 (exclusive)"}},
		{[]string{"sample", "--target", "100%"}, []string{`--target "100%"`, "between 0 and 100"}},
		{[]string{"sample", "--target", "some"}, []string{`--target "some"`, "such as 1 or 1%"}},
		{[]string{"sample", "--pid", "0"}, []string{`--pid "0"`, "whole number from 1"}},
		{[]string{"sample", "--pid", "init"}, []string{`--pid "init"`, "process ID"}},
		{[]string{"sample", "--pid", "1", "--cgroup", "/x"}, []string{`--pid "1" conflicts with --cgroup "/x"`}},
		{[]string{"sample", "--format", "markdown"}, []string{`--format "markdown"`, "json, text, csv"}},
		{[]string{"sample", "-o", "/dev/full"}, []string{`--output "/dev/full"`, "not a regular file"}},
		{[]string{"sample", "now"}, []string{`unknown command "now"`}},
		{[]string{"sample", "--plot", "usage.pdf"}, []string{`--plot "usage.pdf"`, "ending in .svg or .png"}},
		{[]string{"sample", "--plot", "usage"}, []string{`--plot "usage"`, "ending in .svg or .png"}},
		{[]string{"sample", "--plot", "/nonexistent/x.svg"}, []string{`--plot "/nonexistent/x.svg"`, "does not exist"}},
		{[]string{"sample", "--plot", svgDir}, []string{`--plot "` + svgDir + `"`}},
		// simulate
		{[]string{"simulate", "--util", "1"}, []string{`--util "1"`, "above 0 and below 1"}},
		{[]string{"simulate", "--util", "0"}, []string{`--util "0"`, "above 0 and below 1"}},
		{[]string{"simulate", "--util", "0.5,1.2"}, []string{`--util "1.2"`, "above 0 and below 1"}},
		{[]string{"simulate", "--util", "0.9:0.1:0.1"}, []string{`--util "0.9:0.1:0.1"`, "below start"}},
		{[]string{"simulate", "--util", "auto"}, []string{`--util "auto"`, "only with --dist empirical"}},
		{[]string{"simulate", "--cgroups", "0"}, []string{`--cgroups "0"`, "between 1 and 10000"}},
		{[]string{"simulate", "--cgroups", "2.5"}, []string{`--cgroups "2.5"`}},
		{[]string{"simulate", "--buffer", "-1"}, []string{`--buffer "-1"`, "0 to 1e+06 quotas, or inf"}},
		{[]string{"simulate", "--buffer", "NaN"}, []string{`--buffer "NaN"`, `"NaN" is not a number`}},
		{[]string{"simulate", "--pareto-shape", "1"}, []string{`--pareto-shape "1"`, "above 1"}},
		{[]string{"simulate", "--pareto-shape", "0.5"}, []string{`--pareto-shape "0.5"`, "mean is infinite"}},
		{[]string{"simulate", "--dist", "exp", "--pareto-shape", "2"}, []string{`--pareto-shape "2" applies only to --dist pareto (--dist is exp)`}},
		{[]string{"simulate", "--dist", "normal"}, []string{`--dist "normal"`, "exp, pareto, empirical"}},
		{[]string{"simulate", "--cap", "0.5"}, []string{`--cap "0.5"`, "from 1 to 1000"}},
		{[]string{"simulate", "--dist", "empirical"}, []string{"--dist empirical needs --from FILE"}},
		{[]string{"simulate", "--dist", "empirical", "--from", "/nonexistent/usage.json"}, []string{`--from "/nonexistent/usage.json"`, "no such file"}},
		{[]string{"simulate", "--dist", "empirical", "--from", emptyTrace}, []string{`--from "` + emptyTrace + `"`, "no usage_cpus"}},
		{[]string{"simulate", "--dist", "empirical", "--from", base}, []string{`--from "` + base + `"`, "not a usable throttlebench sample trace"}},
		{[]string{"simulate", "--dist", "empirical", "--from", busyTrace, "--util", "auto", "--cgroups", "4"}, []string{"--util auto with --cgroups 4", "utilisation of 2: want below 1"}},
		{[]string{"simulate", "--from", busyTrace}, []string{`--from "` + busyTrace + `" applies only to --dist empirical`}},
		{[]string{"simulate", "--dist", "empirical", "--from", busyTrace, "--cap", "3"}, []string{`--cap "3" applies only to --dist exp and pareto`}},
		{[]string{"simulate", "--periods", "10"}, []string{`--periods "10"`, "between 100 and 1e+08"}},
		{[]string{"simulate", "--periods", "1e9"}, []string{`--periods "1e9"`, "between 100 and 1e+08"}},
		{[]string{"simulate", "--periods", "1000.5"}, []string{`--periods "1000.5"`, "whole number"}},
		{[]string{"simulate", "--replicas", "1"}, []string{`--replicas "1"`, "between 2 and 1000"}},
		{[]string{"simulate", "--replicas", "500", "--periods", "100"}, []string{"--periods 100: want at least --replicas 500"}},
		{[]string{"simulate", "--jobs", "0"}, []string{`--jobs "0"`, "between 1 and 1024"}},
		{[]string{"simulate", "--seed", "-1"}, []string{`--seed "-1"`, "whole number between 0 and 18446744073709551615"}},
		{[]string{"simulate", "--cgroups", "1:1000:1", "--util", "0.1:0.9:0.05"}, []string{"cells: want at most 10000"}},
		{[]string{"simulate", "--format", "gobench"}, []string{`--format "gobench"`, "text, json, csv, markdown"}},
		{[]string{"simulate", "--plot", "grid.pdf"}, []string{`--plot "grid.pdf"`, ".svg or .png"}},
		{[]string{"simulate", "-o", "/dev/full"}, []string{`--output "/dev/full"`, "not a regular file"}},
		{[]string{"simulate", "now"}, []string{`unknown command "now"`}},
		// inspect
		{[]string{"inspect", "--format", "yaml"}, []string{`--format "yaml"`, "want one of text, json"}},
		{[]string{"inspect", "--cpus", "2"}, []string{"unknown flag: --cpus"}},
		{[]string{"inspect", "now"}, []string{`unknown command "now"`}},
		// cleanup, and no command at all
		{[]string{"cleanup", "--cgroup-version", "3"}, []string{`--cgroup-version "3"`, "auto, 1, 2"}},
		{[]string{"cleanup", "leftover"}, []string{`unknown command "leftover"`}},
		{[]string{"rnu"}, []string{`unknown command "rnu"`, "Did you mean this? run"}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		name := strings.Join(c.args, " ")
		require.False(t, seen[name], "listed twice: %s", name)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(c.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "exactly one line: %q", stderr)
			assert.True(t, strings.HasPrefix(stderr, "throttlebench: "), stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
	assert.GreaterOrEqual(t, len(cases), 40, "the hardening issue asks for at least 40")
}
