// Command bench measures dbarena against its peer tools, and two dbarena
// builds against each other, in interleaved paired rounds, and prints
// Markdown tables for docs/BENCHMARKS.md: per measure, the median of the
// per-round paired ratios with its 95% confidence interval
// (distribution-free, golang.org/x/perf/benchmath) and the rounds taken; a
// ratio whose interval holds 1 is called noise.
//
//	go run ./internal/tools/bench peers   [options]  # pgbench and sysbench on PostgreSQL
//	go run ./internal/tools/bench tpcc    [options]  # the TPC-C-like workload against go-tpc
//	go run ./internal/tools/bench mongo   [options]  # MongoDB: mongod's CPU, go-ycsb, PostgreSQL
//	go run ./internal/tools/bench docolap [options]  # docolap's (or jsonbench's) load against \copy and insertMany
//	go run ./internal/tools/bench ab -a OLD -b NEW [-rounds N] -- DBARENA-ARGS…
//
// `bench SUBCOMMAND -h` lists a subcommand's options. Servers:
// $DBARENA_BENCH_PG and $DBARENA_BENCH_MONGO, else the local test servers
// (scripts/testservers). dbarena: $DBARENA_BIN, else built from the tree.
// Peer and server CPU are read through sysmon (ProcessTreeCPU, HostCPU)
// and the kernel's rusage of each child; dbarena's client CPU from its
// result file. Exit status: 0 when everything was measured (whatever the
// verdicts), 3 with --strict when a bar FAILs, 2 on bad usage, 1 on
// errors.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: bench SUBCOMMAND [options]

  peers    dbarena against pgbench and sysbench on PostgreSQL
  tpcc     dbarena's TPC-C-like workload against go-tpc
  mongo    dbarena on MongoDB against mongod's own CPU, go-ycsb and PostgreSQL
  docolap  docolap's (-workload jsonbench: jsonbench's) load against psql \copy and insertMany
  ab       two dbarena builds on one command: ab -a OLD -b NEW [-rounds N] -- ARGS…

bench SUBCOMMAND -h lists its options.
`

var subcommands = map[string]func(context.Context, env, []string) error{
	"peers": peers, "tpcc": tpcc, "mongo": mongoBench, "docolap": docolap, "ab": ab,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, args: os.Args[1:], proc: os.DirFS("/proc")}
	os.Exit(exitCode(e, mainErr(ctx, e)))
}

func mainErr(ctx context.Context, e env) error {
	if len(e.args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return errUsage
	}
	f, ok := subcommands[e.args[0]]
	if !ok {
		if e.args[0] == "-h" || e.args[0] == "--help" || e.args[0] == "help" {
			fmt.Fprint(e.stdout, usage)
			return nil
		}
		fmt.Fprintf(e.stderr, "bench: unknown subcommand %q\n%s", e.args[0], usage)
		return errUsage
	}
	return f(ctx, e, e.args[1:])
}

func exitCode(e env, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errBarFailed):
		return 3
	}
	fmt.Fprintln(e.stderr, "bench:", err)
	return 1
}

// reportErrs prints every problem of a command line at once; errUsage when
// there is one.
func reportErrs(e env, errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	for _, err := range errs {
		fmt.Fprintln(e.stderr, "bench:", err)
	}
	return errUsage
}
