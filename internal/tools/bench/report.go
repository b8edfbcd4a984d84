package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// obs is one run's figures by name (qps, client_us, server_us …).
type obs map[string]float64

// get is a figure, NaN when the run did not give it.
func (o obs) get(key string) float64 {
	if v, ok := o[key]; ok {
		return v
	}
	return math.NaN()
}

// column is a figure of the per-round table.
type column struct {
	key, head string
	prec      int
}

// ref names one figure of one tool.
type ref struct{ tool, key string }

// ratio is a figure of one tool divided by one of another (or of the
// same tool), round by round.
type ratio struct {
	label    string
	num, den ref
	bar      *bar // nil: no requirement
}

// kase is a set of tools measured in interleaved paired rounds, with the
// figures its report shows and the ratios it judges.
type kase struct {
	title  string
	tools  []string
	cols   []column
	ratios []ratio
	notes  []string // printed under the title

	orders [][]string // per round, the tools in the order they ran
	runs   []map[string]obs
}

func (k *kase) values(tool, key string) []float64 {
	out := make([]float64, len(k.runs))
	for r, m := range k.runs {
		out[r] = m[tool].get(key)
	}
	return out
}

// runFunc measures one tool of a case once; round is 0-based, or -1 for a
// discarded warm-up run.
type runFunc func(ctx context.Context, k *kase, tool string, round int) (obs, error)

// runRounds runs every case's tools in interleaved paired rounds: in each
// round, case after case, every tool once, the order rotating from round
// to round. With warm, each tool first runs once, discarded.
func (b *bench) runRounds(ctx context.Context, cases []*kase, warm bool, run runFunc) error {
	if warm {
		for _, k := range cases {
			for _, t := range k.tools {
				b.logf("warm-up: %s, %s", k.title, t)
				if _, err := run(ctx, k, t, -1); err != nil {
					return fmt.Errorf("%s, %s, warm-up: %w", k.title, t, err)
				}
			}
		}
	}
	for r := range b.opt.rounds {
		for _, k := range cases {
			var ord []string
			m := map[string]obs{}
			for _, i := range order(len(k.tools), r) {
				t := k.tools[i]
				ord = append(ord, t)
				b.logf("round %d of %d: %s, %s", r+1, b.opt.rounds, k.title, t)
				o, err := run(ctx, k, t, r)
				if err != nil {
					return fmt.Errorf("%s, %s, round %d: %w", k.title, t, r+1, err)
				}
				m[t] = o
			}
			k.orders = append(k.orders, ord)
			k.runs = append(k.runs, m)
		}
	}
	return nil
}

// header writes the report's title, command line and host.
func (b *bench) header(w io.Writer, title string, lines ...string) {
	fmt.Fprintf(w, "# %s\n\n", title)
	fmt.Fprintf(w, "```sh\ngo run ./internal/tools/bench %s\n```\n\n", shown(b.args, b.secrets()...))
	fmt.Fprintf(w, "- started %s, whole invocation %.0f s\n", b.started.UTC().Format("2006-01-02 15:04 UTC"), time.Since(b.started).Seconds())
	fmt.Fprintf(w, "- host: %s; load average %s at the start, %s at the end\n", hostLine(), b.load0, loadavg(b.proc))
	fmt.Fprintf(w, "- dbarena: `%s` (tree %s)\n", b.dbarenaVersion, b.treeRev)
	for _, l := range lines {
		fmt.Fprintf(w, "- %s\n", l)
	}
	fmt.Fprintln(w)
}

// secrets are the strings a report must not show (passwords).
func (b *bench) secrets() []string {
	out := append([]string(nil), b.known...)
	for _, k := range []string{"DBARENA_BENCH_PG", "DBARENA_BENCH_MONGO", "DBARENA_TEST_POSTGRES", "DBARENA_TEST_MONGO"} {
		out = append(out, urlSecrets(b.getenv(k))...)
	}
	return out
}

// writeCase writes a case's rounds, medians and ratios. It returns the
// number of bars that FAIL.
func writeCase(w io.Writer, k *kase, section string) (fails int) {
	fmt.Fprintf(w, "### %s %s\n\n", section, k.title)
	for _, n := range k.notes {
		fmt.Fprintln(w, n)
	}
	if len(k.notes) > 0 {
		fmt.Fprintln(w)
	}
	if len(k.ratios) > 0 {
		fmt.Fprintf(w, "| ratio | median of the paired ratios | 95 %% interval (its level) | rounds | reading | bar | verdict | paired ratios, round by round |\n")
		fmt.Fprintf(w, "|---|---:|---|---:|---|---|---|---|\n")
		for _, q := range k.ratios {
			ps := pairedRatios(k.values(q.num.tool, q.num.key), k.values(q.den.tool, q.den.key))
			s := summarize(ps)
			barText, verdictText := "–", "–"
			if q.bar != nil {
				barText = q.bar.String()
				var pass bool
				verdictText, pass = q.bar.verdict(s)
				if !pass {
					fails++
				}
				verdictText = "**" + verdictText + "**"
			}
			var each []string
			for _, p := range ps {
				each = append(each, fmtNum(p, 3))
			}
			fmt.Fprintf(w, "| %s | **%s** | %s | %d | %s | %s | %s | %s |\n", q.label, fmtNum(s.Center, 3), interval(s, 3), s.N,
				reading(s), barText, verdictText, strings.Join(each, " "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Medians over the rounds:\n\n| tool |")
	for _, c := range k.cols {
		fmt.Fprintf(w, " %s |", c.head)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(k.cols)))
	for _, t := range k.tools {
		fmt.Fprintf(w, "| %s |", t)
		for _, c := range k.cols {
			fmt.Fprintf(w, " %s |", fmtNum(summarize(k.values(t, c.key)).Center, c.prec))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nEvery round:\n\n| round | order | tool |")
	for _, c := range k.cols {
		fmt.Fprintf(w, " %s |", c.head)
	}
	fmt.Fprintf(w, "\n|---:|---:|---|%s\n", strings.Repeat("---:|", len(k.cols)))
	for r, ord := range k.orders {
		for i, t := range ord {
			fmt.Fprintf(w, "| %d | %d | %s |", r+1, i+1, t)
			for _, c := range k.cols {
				fmt.Fprintf(w, " %s |", fmtNum(k.runs[r][t].get(c.key), c.prec))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	return fails
}

// fmtNum formats a figure; NaN (not measured) as "–".
func fmtNum(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// measuredHow is the paragraph every report gives on where its CPU
// figures come from.
const measuredHow = "CPU: a peer tool's **client CPU** is its process's user+system time as the kernel reports it for a " +
	"child that has exited (rusage, its waited-for children included; start-up and connecting included); dbarena's is " +
	"`client_cpu_s` of its result file (its measured phase). **proc CPU** is the rusage figure for every tool, dbarena " +
	"included. **server CPU** is the server's process tree (sysmon.ProcessTreeCPU: utime+stime+cutime+cstime of the " +
	"server's main process and all its descendants, from /proc), other clients of the server included; **host CPU** the " +
	"whole machine's busy time (sysmon.HostCPU, /proc/stat); **other CPU** = host − server − tool, other work on the " +
	"host, the noise indicator (good to about ±1 s: /proc/stat counts ticks). **wait s**: time spent before the run " +
	"waiting for the host to quieten (--quiet-wait). Ratios: each round pairs the tools' runs; the table gives the median " +
	"of the paired ratios with its distribution-free confidence interval (golang.org/x/perf/benchmath, as benchstat's; " +
	"at 7 rounds the narrowest it gives is the range of the rounds, 98.4 %). A ratio whose interval holds 1 is noise; a " +
	"verdict is the median's against the bar, and says when the interval holds the bar."

// finish writes the report to stdout (and --report FILE), and turns
// failed bars into errBarFailed under --strict.
func (b *bench) finish(report string, fails int) error {
	if _, err := io.WriteString(b.stdout, report); err != nil {
		return err
	}
	if b.opt.report != "" {
		if err := writeFile(b.opt.report, report); err != nil {
			return err
		}
		b.logf("report written to %s", b.opt.report)
	}
	if b.opt.strict && fails > 0 {
		b.logf("%d bar(s) FAIL", fails)
		return errBarFailed
	}
	return nil
}
