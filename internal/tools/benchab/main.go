// Command benchab measures two dbarena builds against each other on the
// same command, in interleaved paired rounds: each round runs build A and
// build B once each (the order alternates from round to round), and the
// report gives every round, each figure's median per build, and the median
// of the per-round ratios B ÷ A with its 95% confidence interval
// (distribution-free, golang.org/x/perf/benchmath, as compare's). A ratio
// whose interval holds 1 is a change the rounds cannot tell from noise.
//
//	go run ./internal/tools/benchab -a /tmp/dbarena-before -b bin/dbarena -rounds 7 -- \
//	    run oltp_point_select --target postgres://… --threads 8 --time 15s
//
// The command is dbarena's own arguments, given to both builds; benchab
// adds --out. Figures: tps, qps, client CPU per transaction and per query
// (µs), p95 and p99 (ms), of the result file's first run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/target"
)

// figure is one number of a run, and whether lower is better.
type figure struct {
	name  string
	lower bool
	get   func(*result.Run) float64
}

var figures = []figure{
	{"tps", false, func(r *result.Run) float64 { return r.TPS }},
	{"qps", false, func(r *result.Run) float64 { return r.QPS }},
	{"client_cpu_per_txn_us", true, func(r *result.Run) float64 { return r.ClientCPUPerTxnUS }},
	{"client_cpu_per_query_us", true, func(r *result.Run) float64 { return r.ClientCPUPerQueryUS }},
	{"p95_ms", true, func(r *result.Run) float64 { return r.LatencyMS.P95 }},
	{"p99_ms", true, func(r *result.Run) float64 { return r.LatencyMS.P99 }},
}

func main() {
	a := flag.String("a", "", "build A, the baseline (a dbarena binary)")
	b := flag.String("b", "", "build B, measured against A")
	rounds := flag.Int("rounds", 7, "paired rounds (at least 7 for a finite 95% interval)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: benchab -a BIN -b BIN [-rounds N] -- DBARENA-ARGS...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	args := flag.Args()
	var errs []error
	if *a == "" || *b == "" {
		errs = append(errs, errors.New("-a and -b: give both builds"))
	}
	if *rounds < 1 {
		errs = append(errs, fmt.Errorf("-rounds %d: must be at least 1", *rounds))
	}
	if len(args) == 0 {
		errs = append(errs, errors.New("give dbarena's arguments after --"))
	}
	if len(errs) > 0 {
		fmt.Fprintln(os.Stderr, "benchab:", errors.Join(errs...))
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*a, *b, *rounds, args); err != nil {
		fmt.Fprintln(os.Stderr, "benchab:", err)
		os.Exit(1)
	}
}

func run(a, b string, rounds int, args []string) error {
	dir, err := os.MkdirTemp("", "benchab-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	builds := [2]string{a, b}
	var runs [2][]*result.Run
	fmt.Printf("benchab: A = %s, B = %s, %d rounds of: dbarena %s\n\n", a, b, rounds, shown(args))
	for r := range rounds {
		order := [2]int{0, 1}
		if r%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, i := range order {
			out := filepath.Join(dir, fmt.Sprintf("r%d-%c.json", r, 'A'+i))
			cmd := exec.Command(builds[i], append(slices.Clone(args), "--out", out)...)
			var stderr strings.Builder
			cmd.Stdout, cmd.Stderr = nil, &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("round %d, build %c: %w: %s", r+1, 'A'+i, err, strings.TrimSpace(stderr.String()))
			}
			f, err := result.Read(out)
			if err != nil {
				return fmt.Errorf("round %d, build %c: %w", r+1, 'A'+i, err)
			}
			if len(f.Runs) == 0 {
				return fmt.Errorf("round %d, build %c: the result file has no run", r+1, 'A'+i)
			}
			runs[i] = append(runs[i], &f.Runs[0])
		}
		fmt.Printf("round %d:", r+1)
		for _, fg := range figures {
			fmt.Printf("  %s %.4g/%.4g", fg.name, fg.get(runs[0][r]), fg.get(runs[1][r]))
		}
		fmt.Println()
	}
	fmt.Printf("\n| figure | A median | B median | B ÷ A, median of the paired ratios | 95%% CI | verdict |\n|---|---:|---:|---:|---|---|\n")
	for _, fg := range figures {
		var va, vb, ratios []float64
		for r := range rounds {
			x, y := fg.get(runs[0][r]), fg.get(runs[1][r])
			va, vb = append(va, x), append(vb, y)
			if x != 0 {
				ratios = append(ratios, y/x)
			}
		}
		ma, _, _ := summary(va)
		mb, _, _ := summary(vb)
		mr, lo, hi := summary(ratios)
		fmt.Printf("| %s | %.4g | %.4g | %.4f | %s | %s |\n", fg.name, ma, mb, mr, interval(lo, hi), verdict(lo, hi, fg.lower))
	}
	return nil
}

// summary is the median of vs and its 95% confidence interval (±Inf when
// vs is too small for one).
func summary(vs []float64) (center, lo, hi float64) {
	if len(vs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := benchmath.NewSample(slices.Clone(vs), &benchmath.DefaultThresholds)
	if len(vs) == 1 {
		return vs[0], math.Inf(-1), math.Inf(1)
	}
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	return sum.Center, sum.Lo, sum.Hi
}

func interval(lo, hi float64) string {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return "too few rounds"
	}
	return fmt.Sprintf("%.4f – %.4f", lo, hi)
}

// verdict reads the ratio's interval: B better, worse, or not told apart
// from A.
func verdict(lo, hi float64, lower bool) string {
	switch {
	case math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo):
		return "–"
	case lo <= 1 && hi >= 1:
		return "within the noise"
	case (hi < 1) == lower:
		return "B better"
	}
	return "B worse"
}

// shown is the command line as benchab prints it: a target's password
// never shows.
func shown(args []string) string {
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = target.RedactURL(arg)
	}
	return strings.Join(out, " ")
}
