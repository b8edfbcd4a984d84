# dbarena build and test entry points.
#
#   make build        static binary bin/dbarena (CGO_ENABLED=0)
#   make test         go vet + go test -race against throw-away database
#                     servers (scripts/testservers); exits with their status
#   make bench-peers  side-by-side runs against pgbench and sysbench (internal/tools/bench peers)
#   make bench-tpcc   the TPC-C-like workload against go-tpc (internal/tools/bench tpcc)
#   make bench-mongo  dbarena's client CPU on MongoDB against mongod's, PostgreSQL's and go-ycsb's (internal/tools/bench mongo)
#   make bench-docolap  docolap's load against psql \copy and insertMany from a file (internal/tools/bench docolap)
#   make bench-ab     two dbarena builds on one command, interleaved paired rounds
#                     (A=BIN B=BIN ARGS="run …"; internal/tools/bench ab)
#   make k8s-test     an Indexed Job of shards through a real Kubernetes API server
#                     and Job controller on loopback (scripts/k8s-control-plane;
#                     go test -tags k8s ./internal/k8stest/; the first run builds
#                     the control plane into a cache, ~10 min)
#   make clean        remove build output
#
# make test starts the servers, exports their DBARENA_TEST_* variables and
# stops them afterwards, whatever the outcome, unless they were running
# before (then they belong to someone else) or KEEP_SERVERS=1 is given.
# make k8s-test does the same with the control plane and DBARENA_K8S_*, and
# the PostgreSQL test server the sharded Job runs against.

SHELL := /bin/bash
GO ?= go
TESTSERVERS := scripts/testservers
# The race detector needs cgo and a C compiler. modernc.org/sqlite is SQLite's
# C code translated to Go: instrumenting it checks no dbarena code and makes
# every SQLite statement 20-30 times slower (a TPC-C consistency check of one
# warehouse: 33 s instead of 1 s), so the translated code (sqlite/lib, libc,
# memory, mathutil) is compiled without it. The thin modernc.org/sqlite
# package itself stays instrumented: it instantiates generic code (sync.Map's
# internals) that the linker shares with the rest of the binary, and an
# uninstrumented copy there would hide sync.Map's synchronisation from the
# race detector everywhere and report races that are not.
RACE := $(if $(shell command -v gcc 2>/dev/null),-race -gcflags=modernc.org/sqlite/lib=-race=false -gcflags=modernc.org/libc/...=-race=false -gcflags=modernc.org/memory=-race=false -gcflags=modernc.org/mathutil=-race=false,)
GOTESTFLAGS ?= -count=1 $(RACE) -timeout 10m
# go test runs packages in the order it is given them, at most GOMAXPROCS
# at a time: the slowest (a minute and more under the race detector) go
# first, so that the last minutes are not one long package running alone.
SLOW_TESTS := ./workload/tpce/ ./internal/cli/ ./cmd/dbarena/ ./workload/tpce/internal/gen/ ./workload/tpcc/ \
	./workload/tpcc/internal/gen/ ./workload/docolap/ ./workload/oltp/mongo/ ./runner/ \
	./workload/tpcc/internal/consistency/ ./internal/faults/ ./workload/oltp/
KEEP_SERVERS ?=

.PHONY: build test k8s-test bench-peers bench-tpcc bench-mongo bench-docolap bench-ab soak clean

# The commit, for dbarena --version where the toolchain stamps none.
COMMIT := $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || c=$$c-dirty; echo $$c; })

build:
	@test -x bin/dbarena || echo "make build: compiling bin/dbarena and its ~540 packages (a cold build takes a few minutes on 2 cores)"
	CGO_ENABLED=0 $(GO) build -ldflags "-X main.stampedCommit=$(COMMIT)" -o bin/dbarena ./cmd/dbarena

test:
	@was_running=0; \
	if $(TESTSERVERS) status >/dev/null 2>&1; then was_running=1; fi; \
	status=0; \
	if $(TESTSERVERS) start all; then \
		eval "$$($(TESTSERVERS) env)"; \
		echo "+ go vet ./..."; \
		$(GO) vet ./... || status=$$?; \
		echo "+ go test $(GOTESTFLAGS) ./..."; \
		CGO_ENABLED=$(if $(RACE),1,0) $(GO) test $(GOTESTFLAGS) $(SLOW_TESTS) ./... || status=$$?; \
	else \
		status=1; \
	fi; \
	if [ $$was_running = 1 ] || [ -n "$(KEEP_SERVERS)" ]; then \
		echo "make test: leaving the test servers running"; \
	else \
		$(TESTSERVERS) stop all || true; \
	fi; \
	exit $$status

K8S_CONTROL_PLANE := scripts/k8s-control-plane

k8s-test:
	@was_running=0; \
	if $(K8S_CONTROL_PLANE) status >/dev/null 2>&1; then was_running=1; fi; \
	status=0; \
	if $(K8S_CONTROL_PLANE) build && $(K8S_CONTROL_PLANE) start && $(TESTSERVERS) start postgres; then \
		eval "$$($(K8S_CONTROL_PLANE) env)"; \
		eval "$$($(TESTSERVERS) env)"; \
		echo "+ go test -tags k8s -count=1 -v ./internal/k8stest/"; \
		$(GO) test -tags k8s -count=1 -v ./internal/k8stest/ || status=$$?; \
	else \
		status=1; \
	fi; \
	if [ $$was_running = 1 ] || [ -n "$(KEEP_SERVERS)" ]; then \
		echo "make k8s-test: leaving the control plane running"; \
	else \
		$(K8S_CONTROL_PLANE) stop || true; \
	fi; \
	exit $$status

bench-peers:
	$(GO) run ./internal/tools/bench peers $(ARGS)

bench-tpcc:
	$(GO) run ./internal/tools/bench tpcc $(ARGS)

ROUNDS ?= 7
bench-ab:
	$(GO) run ./internal/tools/bench ab -a "$(A)" -b "$(B)" -rounds $(ROUNDS) -- $(ARGS)

bench-mongo:
	$(GO) run ./internal/tools/bench mongo $(ARGS)

bench-docolap:
	$(GO) run ./internal/tools/bench docolap $(ARGS)

# soak: an hour of 256 workers on a managed PostgreSQL, then 1,000 workers;
# SOAK_DURATION, SOAK_THREADS, SOAK_PEAK_THREADS, SOAK_PEAK_DURATION and
# SOAK_SAMPLE change it (docs/BENCHMARKS.md).
soak:
	CGO_ENABLED=0 $(GO) test -tags soak -run TestSoak -timeout 0 -count=1 -v ./bench/soak/

clean:
	rm -rf bin
