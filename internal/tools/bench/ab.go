package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/target"
)

// abFigures are the figures of a result file's first run that ab compares.
var abFigures = []struct {
	key, head string
	prec      int
	get       func(*result.Run) float64
}{
	{"tps", "tps", 1, func(r *result.Run) float64 { return r.TPS }},
	{"qps", "qps", 1, func(r *result.Run) float64 { return r.QPS }},
	{"client_cpu_per_txn_us", "client CPU per txn, µs", 2, func(r *result.Run) float64 { return r.ClientCPUPerTxnUS }},
	{"client_cpu_per_query_us", "client CPU per query, µs", 2, func(r *result.Run) float64 { return r.ClientCPUPerQueryUS }},
	{"p95_ms", "p95 ms", 3, func(r *result.Run) float64 { return r.LatencyMS.P95 }},
	{"p99_ms", "p99 ms", 3, func(r *result.Run) float64 { return r.LatencyMS.P99 }},
}

// ab runs two dbarena builds on one command in interleaved paired rounds
// (A B, B A, …) and reports each figure's ratio B ÷ A.
func ab(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("ab", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	a := fs.String("a", "", "build A, the baseline (a dbarena binary)")
	bb := fs.String("b", "", "build B, measured against A")
	var o options
	o.register(fs, 7, time.Second, 0)
	o.quietWait.d = 0
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: bench ab -a BIN -b BIN [-rounds N] [-quiet-wait S] [-report FILE] [-strict] -- DBARENA-ARGS...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	cmdArgs := fs.Args()
	var errs []error
	if *a == "" || *bb == "" {
		errs = append(errs, errors.New("-a and -b: give both builds"))
	}
	if o.rounds < 1 {
		errs = append(errs, fmt.Errorf("-rounds %d: must be at least 1", o.rounds))
	}
	if len(cmdArgs) == 0 {
		errs = append(errs, errors.New("give dbarena's arguments after --"))
	}
	if err := reportErrs(e, errs); err != nil {
		fs.Usage()
		return err
	}
	b := &bench{env: e, name: "ab", opt: o, started: time.Now(), load0: loadavg(e.proc),
		dbarenaVersion: "A = " + *a + ", B = " + *bb, treeRev: "not built here"}
	var err error
	if b.work, err = os.MkdirTemp("", "dbarena-bench-ab-"); err != nil {
		return err
	}
	defer b.close()
	builds := map[string]string{"A": *a, "B": *bb}
	k := &kase{title: "B ÷ A on: dbarena " + redactArgs(cmdArgs), tools: []string{"A", "B"}}
	for _, f := range abFigures {
		k.cols = append(k.cols, column{f.key, f.head, f.prec})
		k.ratios = append(k.ratios, ratio{f.head + ", B ÷ A", ref{"B", f.key}, ref{"A", f.key}, nil})
	}
	k.cols = append(k.cols, column{"other_cpu_s", "other CPU s", 2}, column{"wait_s", "wait s", 0})
	err = b.runRounds(ctx, []*kase{k}, false, func(ctx context.Context, k *kase, tool string, round int) (obs, error) {
		out := filepath.Join(b.work, fmt.Sprintf("r%d-%s.json", round+1, tool))
		argv := append([]string{builds[tool]}, append(slices.Clone(cmdArgs), "--out", out)...)
		o, _, err := b.timed(ctx, fmt.Sprintf("r%d-%s", round+1, tool), argv, nil, 0, nil)
		if err != nil {
			return nil, err
		}
		_, r, err := readResult(out)
		if err != nil {
			return nil, err
		}
		for _, f := range abFigures {
			o[f.key] = f.get(r)
		}
		o["other_cpu_s"] = o["host_cpu_s"] - o["proc_cpu_s"]
		return o, nil
	})
	if err != nil {
		return err
	}
	var rep strings.Builder
	b.header(&rep, "Two dbarena builds side by side", fmt.Sprintf("%d interleaved paired rounds (A B, B A, …)", o.rounds))
	fmt.Fprintln(&rep, "Figures of each result file's first run; other CPU s here is the host's busy time minus the build's process (its server's CPU included). A ratio whose interval holds 1 is a change the rounds cannot tell from noise.")
	fmt.Fprintln(&rep)
	fails := writeCase(&rep, k, "")
	return b.finish(rep.String(), fails)
}

func redactArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(target.RedactURL(a))
	}
	return strings.Join(out, " ")
}
