# throttlebench — build, test, benchmark.
#   make build   static binary in bin/throttlebench, stamped with
#                `git describe --always --dirty` and the commit (version)
#   make install copy bin/throttlebench (built first where missing) to
#                $(PREFIX)/bin (PREFIX=/usr/local): `make build && sudo make
#                install` builds as you and only copies as root
#   make run     build, then measure 0.1 CPUs (with sudo unless root or cpu is
#                delegated to your systemd user manager)
#   make check   quick loop: vet + unit tests, no root needed
#   make test    everything CI runs (root), each stage timed and all run
#                (test/stages.sh): unit + host cgroups (test-host),
#                six boundary fuzz targets for 3s each (test-fuzz), cgroup v2 in a VM
#                (test-vm), a stock systemd guest (test-systemd), Docker
#                and a Kubernetes 1.35 node on cgroup v2 in it
#                (test-containers-v2), the Docker image (test-docker), a
#                real Kubernetes node on this host's v1 (test-kube)
#   make fuzz    every fuzz target for FUZZTIME (60s) each: about 14 minutes
#   make test-stress  the timing-sensitive packages' tests STRESS_N (5)
#                times beside a busy loop pinned to each CPU (root), and how
#                often each test failed: run it before widening a bound;
#                STRESS_VM=1 boots the v2, tracer and systemd guests instead,
#                beside a busy loop on one CPU, then on every CPU
#   make soak    fault trials, counted (root): every way a run ends, 20 times
#                each at random moments, on this host and on cgroup v2 in the
#                VM; fails on any leftover (make test runs 3 of each)
#   make bench   harness fidelity, the harness's share of a 1 ms/10 ms slice
#                (root), CFS model ratios (root for the model grid),
#                spin's cost per operation and what placement sampling adds
#                to it, memtouch first touch vs reuse in MB/s (whole
#                buffers painted, and one store per page),
#                the sampler's overhead at 100 ms and 10 ms (in process, and
#                sample's beside a plain Python loop reading the same
#                counter in the same run: BenchmarkSamplerCost), the open loop's
#                recording overhead and latency floor, the latency floor
#                beside cyclictest's, taking turns (test/bench/setup.sh
#                installs Debian's rt-tests; schbench where on PATH), the
#                burst simulator's cgroup-periods per second on one core
#                and on all, the
#                throttle-event pipeline's events per second, the tracer's
#                ring buffer and cost per sched_switch (root), and what
#                --trace costs a run (traced/plain), the open-loop HTTP
#                client's floor and highest rate beside vegeta's, and
#                run -- CMD beside hyperfine -N (durations and each
#                harness's cost per run; test/bench/setup.sh installs it),
#                and compare as a CI gate beside a busy loop on one CPU and
#                on each: false alarms in 100 pairs of one command, a 5%
#                regression caught in 20, a 20% one read as the code's
#                (BenchmarkCompareGate, about 25 minutes a count;
#                BENCH_GATE_PAIRS and BENCH_GATE_REGRESSIONS shrink it).
#                Every sample is kept: each go test runs through
#                bin/benchhist, which shows its output and appends a line
#                per benchmark to BENCH_HISTORY (bench/history/PKG/NAME.jsonl:
#                the run's time, machine, kernel, cgroup layout, Go, commit,
#                every metric's samples). -count 5 in process, 3 for
#                httpload's 1x benchmark, 2 for test/integration's;
#                BENCH_COUNT=N sets all three
#   make bench-vm  the tracer's benchmarks in the VM guests on Debian's
#                6.1 and 6.12 (root; about 5 minutes a kernel), recorded
#                in BENCH_HISTORY under the guest's kernel: the figures per
#                kernel (agreement with cpu.stat, cost per context switch)
#   make bench-check  the newest run of each benchmark in BENCH_HISTORY
#                against its earlier runs on the same machine and kernel
#                (BENCH_MATCH), per metric: Mann-Whitney U (internal/compare)
#                and the median's change; fails when one moved: p <
#                BENCH_ALPHA (0.05) and |change| >= BENCH_THRESHOLD (5%)
#   make image   the Docker image throttlebench:dev (FROM scratch)
#   make docs    record the README's examples again (root): docs/record.sh
#                runs each and writes its output between its markers
#   make generate  rebuild internal/tracer's BPF object and its Go loader
#                (bpf2go; clang, llvm and libbpf-dev from test/bpf/setup.sh);
#                the results are committed, so a build never needs clang

GO      ?= go
BIN     := bin/throttlebench
IMAGE   ?= throttlebench:dev
ARGS    ?= run --cpus 0.1 --batch 50 --iterations 5 --format text
# Creating cgroups needs root, or a systemd user manager that has the cpu
# controller delegated (the systemd driver then makes the slices in a scope
# of that manager's): `make run` builds as you and runs the binary with sudo
# unless you are root already or your manager's cgroup.controllers has cpu.
USER_MANAGER := /sys/fs/cgroup/user.slice/user-$(shell id -u).slice/user@$(shell id -u).service
SUDO    := $(shell [ "$$(id -u)" = 0 ] || { [ -d /run/systemd/system ] && grep -qw cpu $(USER_MANAGER)/cgroup.controllers 2>/dev/null; } || echo sudo)
export CGO_ENABLED := 0
PREFIX  ?= /usr/local
# What `throttlebench version` says: "dev" and "unknown" outside a git checkout.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: build install run check docs generate test test-host test-stress test-fuzz test-vm test-systemd test-docker-v2 test-containers-v2 test-docker test-kube fuzz soak bench bench-vm bench-check benchhist image clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/throttlebench

# Only copies, so that `sudo make install` needs no Go in root's PATH.
install:
	[ -x $(BIN) ] || $(MAKE) build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/throttlebench

run: build
	$(SUDO) $(BIN) $(ARGS)

check:
	$(GO) vet ./...
	$(GO) test -count=1 ./internal/... ./cmd/...

# Unit tests and the integration tests against this machine's real cgroups.
test-host: build
	$(GO) vet ./...
	THROTTLEBENCH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 20m $$($(GO) list ./... | grep -v -e /test/docker -e /test/kube)

# The packages with a wall-clock or ratio bound (test/stress lists them;
# STRESS_PKGS for others), run together STRESS_N times beside a busy loop
# pinned to each CPU, as on a shared CI runner; a table of failures per test.
STRESS_N ?= 5
STRESS_PKGS ?=
STRESS_ARGS ?=
# STRESS_VM=1: the VM lanes instead (the v2, tracer and systemd guests),
# STRESS_N boots of each beside a busy loop on one CPU, then STRESS_N
# beside one on every CPU (STRESS_LOADS=one or all for one of them), a
# table of failures per test and each lane's times; consoles in
# bin/stress-vm/.
STRESS_VM ?=
STRESS_LOADS ?= one,all
test-stress: build
ifeq ($(STRESS_VM),)
	THROTTLEBENCH_BIN=$(CURDIR)/$(BIN) CI=true $(GO) run ./test/stress -n $(STRESS_N) -go $(GO) $(STRESS_ARGS) $(STRESS_PKGS)
else
	CI=true $(GO) run ./test/stress -vm -n $(STRESS_N) -loads $(STRESS_LOADS) $(STRESS_ARGS)
endif

# A few seconds each for the fuzz targets that guard a boundary where
# outside input decides what root writes or what a user is told: the limit
# flags, the mount and cgroup files that place a slice, a result read back
# (compare, sweep --from), a Kubernetes archive (collect), and the kernel's
# throttle records turned into intervals (the tracer's ring buffer). All 21
# for 3 s took 162 s of a CI run, most of it building each target's
# instrumented binary; the first five take 23 s here (quiet). Plain go test already runs every
# target's seeds and the inputs committed under testdata/fuzz/, and make
# fuzz fuzzes all of them.
TEST_FUZZTIME ?= 3s
TEST_FUZZTARGETS ?= ^Fuzz(LimitFlags|ParseMountInfo|ParseProcCgroup|Load|Archive|Interpreter)$$
test-fuzz:
	GO=$(GO) FUZZTIME=$(TEST_FUZZTIME) FUZZTARGETS='$(TEST_FUZZTARGETS)' test/fuzz.sh

# The same, long enough to find something new: FUZZTIME per target.
FUZZTIME ?= 60s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) test/fuzz.sh

# cgroup v2 for real: the integration tests inside a qemu VM (test/vm);
# then a short boot of a guest with SMT (2 cores of 2 threads) for what the
# CPU layout decides (test/vm/smt); then the eBPF throttle tracer's own
# tests on the VM's kernel (test/vm/tracer). All run even when one fails.
# TB_VM_KERNEL=6.12 test/vm/test-v2.sh tracer boots Debian's 6.12 instead
# (test/stages.sh tracer-6.12), not yet part of this target (issue 49).
# Each guest's boots, with every retry and its cause, are printed again at
# the end, so a CI log's last lines show how often a VM was booted again.
VM_BOOTS := bin/test-vm-boots.txt
test-vm:
	rc=0; mkdir -p bin; summary=$(VM_BOOTS); : >$$summary; \
	TB_VM_SUMMARY=$$summary test/vm/test-v2.sh || rc=1; \
	TB_VM_SUMMARY=$$summary test/vm/test-v2.sh smt || rc=1; \
	TB_VM_SUMMARY=$$summary test/vm/test-v2.sh tracer || rc=1; \
	TB_VM_SUMMARY=$$summary TB_VM_KERNEL=6.12 test/vm/test-v2.sh tracer || rc=1; \
	echo "test-vm: the VM boots, one line per guest:"; cat $$summary; \
	exit $$rc

# A stock systemd host: Debian bookworm (systemd 252) booted whole in qemu
# (test/systemd; setup.sh builds and caches the image, about 32 s once),
# the systemd cgroup driver as root and as a user (driver/guest.sh:
# about 50 s a boot under TCG here). Its boots join the VM's summary.
test-systemd:
	mkdir -p bin; bash test/systemd/setup.sh
	TB_VM_SUMMARY=$(CURDIR)/$(VM_BOOTS) bash test/systemd/test.sh driver

# Docker on cgroup v2 (issue 50): Debian's docker.io in the same systemd
# guest (the systemd cgroup driver, as v2 hosts run it) builds the image
# from the Dockerfile and runs test/docker's checks of the container's
# view (test/systemd/docker/guest.sh says which, and why only those).
test-docker-v2:
	mkdir -p bin; bash test/systemd/setup.sh
	TB_VM_SUMMARY=$(CURDIR)/$(VM_BOOTS) bash test/systemd/test.sh docker

# The same guest, and after its Docker checks a Kubernetes 1.35 node in it
# (test/kube/v2.sh): kubelet and containerd with the systemd cgroup driver
# in the guest, the control plane on this host through ports qemu forwards
# on 127.0.0.1; test/kube's checks of the pods' cgroups run in the guest.
# make test runs this one boot for both (stage containers-v2).
test-containers-v2:
	mkdir -p bin; TB_VM_SUMMARY=$(CURDIR)/$(VM_BOOTS) test/kube/v2.sh

# The container path: a real Docker engine (started and stopped here if none
# runs), the image, docker run with --cpu-period/--cpu-quota and --cpus.
test-docker:
	test/docker/run.sh

# A real Kubernetes node (test/kube/run.sh): upstream etcd, apiserver,
# controller-manager, scheduler and kubelet (build.sh builds them from the
# Go module proxy once, minutes, into ~/.cache/throttlebench/kube; then a
# second) on a private containerd and runc, all on 127.0.0.1; the emitted
# Jobs applied with its kubectl, their pods' cgroups and processes read on
# the host, collect and compare on what they printed; then all of it taken
# down and the host checked against how it was (processes, cgroups, mounts,
# links, iptables, sysctls).
test-kube:
	test/kube/run.sh

# Every stage of the above, one after another (test/stages.sh): each
# prints its start, end and duration; a red stage does not stop the later
# ones, so one run reports every lane, and make test fails at the end. The
# last lines are the VM boots' summary (every retry and its cause) and a
# table of the stages. STAGES="v2 tracer" runs some of them.
STAGES ?=
test:
	MAKE='$(MAKE)' TB_VM_SUMMARY=$(CURDIR)/$(VM_BOOTS) bash test/stages.sh $(STAGES)

# The fault soak (test/integration/soak_test.go): normal ends, SIGINT and
# SIGTERM at random moments, SIGKILL of the child and of the parent, random
# timeouts, parallel runs, interrupted sweeps; after each trial the slices,
# processes and partial output files left behind are counted. A table per
# hierarchy: this host's (v1 here), then cgroup v2 in the VM; both run even
# when the first fails.
SOAK_TRIALS ?= 20
soak: build
	rc=0; \
	THROTTLEBENCH_BIN=$(CURDIR)/$(BIN) TB_SOAK_TRIALS=$(SOAK_TRIALS) $(GO) test -count=1 -v -timeout 30m -run '^TestSoak$$' ./test/integration || rc=1; \
	TB_SOAK_TRIALS=$(SOAK_TRIALS) test/vm/test-v2.sh soak || rc=1; \
	exit $$rc

# The benchmarks, each go test through the recorder (test/bench/benchhist):
# its output shown as it comes, its exit status kept, a line per benchmark
# appended to its file in BENCH_HISTORY, all with this run's start time; an
# interrupted go test records nothing. -count gives each run several
# samples: 5 of each in-process benchmark (1 s each), 3 of httpload's and
# 2 of test/integration's slow 1x ones; BENCH_COUNT=N sets all three.
# docs/development.md says what a line holds and how to read bench-check.
BENCHHIST       := bin/benchhist
BENCH_HISTORY   ?= bench/history
BENCH_COUNT     ?=
BENCH_ALPHA     ?= 0.05
BENCH_THRESHOLD ?= 5
BENCH_MATCH     ?= machine,kernel
BENCH_RUNS      ?= 0
BENCH_CHECK_ARGS ?=
BENCH_RECORD = $(BENCHHIST) record -history '$(BENCH_HISTORY)' -time $(BENCH_TIME) -go "$$($(GO) env GOVERSION)" --

benchhist:
	$(GO) build -o $(BENCHHIST) ./test/bench/benchhist

bench: BENCH_TIME := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
bench: build benchhist
	bash test/bench/setup.sh
	$(BENCH_RECORD) $(GO) test -run '^$$' -bench . -count $(or $(BENCH_COUNT),5) -timeout 30m ./internal/bench/workload ./internal/stats ./internal/usage ./internal/bench ./internal/model ./internal/throttle ./internal/tracer
	$(BENCH_RECORD) $(GO) test -run '^$$' -bench . -benchtime 1x -count $(or $(BENCH_COUNT),3) -timeout 30m ./internal/httpload
	THROTTLEBENCH_BIN=$(CURDIR)/$(BIN) $(BENCH_RECORD) $(GO) test -run '^$$' -bench . -benchtime 1x -count $(or $(BENCH_COUNT),2) -timeout 150m ./test/integration

# The tracer's benchmarks in the VM guests, on Debian's 6.1 and 6.12 (make
# bench runs them on this host's kernel), each kernel's console recorded
# in BENCH_HISTORY under the guest's kernel and CPU (benchhist record
# -guest): BENCH_COUNT rounds each (default 3), about 5 minutes a kernel;
# BENCH_VM=REGEXP runs those benchmarks alone.
bench-vm: BENCH_TIME := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
bench-vm: benchhist
	rc=0; mkdir -p bin; for k in 6.1 6.12; do \
		log=bin/bench-vm-$$k.log; \
		TB_VM_KERNEL=$$k TB_VM_BENCH_COUNT=$(or $(BENCH_COUNT),3) TB_VM_BENCH='$(or $(BENCH_VM),.)' test/vm/test-v2.sh tracer >$$log 2>&1 || rc=1; \
		release=$$(sed -n 's/^kernel: //p' $$log | head -n 1 | tr -d '\r'); \
		if [ -z "$$release" ]; then echo "bench-vm: the $$k guest did not start (see $$log)"; rc=1; continue; fi; \
		$(BENCHHIST) record -history '$(BENCH_HISTORY)' -time $(BENCH_TIME) -go "$$($(GO) env GOVERSION)" -guest "$$release" <$$log || rc=1; \
	done; exit $$rc

# The newest run of each benchmark against its earlier runs (no root
# needed): one table, exit 0 when nothing moved. When a metric moved,
# benchhist exits 3 and make fails (make's own status is 2); 1 is an
# error, 2 bad usage. BENCH_CHECK_ARGS passes more: -all, -format markdown.
bench-check: benchhist
	$(BENCHHIST) check -history '$(BENCH_HISTORY)' -alpha $(BENCH_ALPHA) -threshold $(BENCH_THRESHOLD) -match '$(BENCH_MATCH)' -runs $(BENCH_RUNS) $(BENCH_CHECK_ARGS)

# The BPF C of internal/tracer through bpf2go (a tool of go.mod), and the
# hash of the C beside the objects, which TestObjectFresh compares.
generate:
	bash test/bpf/setup.sh
	$(GO) generate ./internal/tracer/...

# The README's examples, run on this host and written back between their
# <!-- record: NAME --> markers; one at a time beside other heavy work.
DOCS_LOCK ?= /tmp/tb-heavy.lock
docs:
	flock $(DOCS_LOCK) docs/record.sh

image: build
	docker build -q -t $(IMAGE) .

clean:
	rm -rf bin
