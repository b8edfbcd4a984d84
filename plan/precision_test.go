package plan_test

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
)

const untilCI = `
name: precise
duration: 1s
threads: [1, 4]
repetitions: {until_ci: 2%, min: 5, max: MAX}
targets:
  - {label: a, url: "sqlite:///a.db"}
workloads:
  - name: oltp_point_select
`

// noisy is an executor whose tps is 1000 per thread times
// 1 + noise·N(0,1), drawn from the cell and repetition (the same noise on
// a rerun).
type noisy struct {
	fake
	noise float64
}

func (n *noisy) Run(ctx context.Context, c plan.Cell, rep int) (*result.File, error) {
	f, err := n.fake.Run(ctx, c, rep)
	if err != nil || f == nil {
		return f, err
	}
	h := fnv.New64a()
	h.Write([]byte(c.ID))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(rep)))
	for i := range f.Runs {
		f.Runs[i].TPS = float64(1000*c.Threads) * (1 + n.noise*rng.NormFloat64())
	}
	return f, nil
}

func TestUntilCI(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, strings.Replace(untilCI, "MAX", "30", 1))
	if p.Precision == nil || p.Precision.Width != 0.02 || p.Repetitions != compare.MinRounds {
		t.Fatalf("precision %+v, first rounds %d", p.Precision, p.Repetitions)
	}
	dir := filepath.Join(tmp, "res")
	ex := &noisy{noise: 0.01}
	var log strings.Builder
	st, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Dir: dir, Now: clock(), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if st.Precision == nil || st.Precision.Stop != "reached" || st.Precision.Rounds < compare.MinRounds || *st.Precision.WidestPct > 2 {
		t.Fatalf("precision %+v\n%s", st.Precision, log.String())
	}
	rounds := st.Precision.Rounds
	if len(st.Runs) != 2*rounds || ex.runs != 2*rounds {
		t.Errorf("%d runs listed, %d run, for %d rounds of 2 cells", len(st.Runs), ex.runs, rounds)
	}
	// Every cell's interval, from its files, within ±2%.
	for _, id := range []string{"a__oltp_point_select__t1", "a__oltp_point_select__t4"} {
		var vs []float64
		for _, rs := range st.Runs {
			if rs.Cell == id {
				f, err := result.Read(filepath.Join(dir, rs.File))
				if err != nil {
					t.Fatal(err)
				}
				vs = append(vs, f.Runs[0].TPS)
			}
		}
		if w := compare.HalfWidth(vs); w > 0.02 {
			t.Errorf("%s: ±%.2f%% after %d rounds", id, 100*w, len(vs))
		}
	}
	md := readFile(t, filepath.Join(dir, plan.CompareFile))
	if !strings.Contains(md, "until-ci ±2%: every interval within it (the widest ±") || !strings.Contains(md, "after "+strconv.Itoa(rounds)+" rounds") {
		t.Errorf("compare.md does not say how the rounds ended:\n%s", md)
	}
	// Every round is in the tables, not only the first ones.
	if n := "(n=" + strconv.Itoa(rounds) + ")"; strings.Count(md, n) < 2 {
		t.Errorf("compare.md's cells lack %s: not every round is in them:\n%s", n, md)
	}
	if html := readFile(t, filepath.Join(dir, plan.ReportFile)); !strings.Contains(html, "until-ci ±2%: every interval within it") {
		t.Error("report.html does not say how the rounds ended")
	}
	if !strings.Contains(log.String(), "round 6 done, the widest interval") && rounds > 6 {
		t.Errorf("the log does not say where the rule stood:\n%s", log.String())
	}

	// Run again: nothing is left to do, and the verdict stands.
	ex2 := &noisy{noise: 0.01}
	st2, err := plan.Run(context.Background(), p, ex2, plan.RunOptions{Dir: dir, Now: clock()})
	if err != nil || ex2.runs != 0 || st2.Precision == nil || st2.Precision.Rounds != rounds || len(st2.Runs) != 2*rounds {
		t.Errorf("resumed: %v, %d runs, %+v, %d listed", err, ex2.runs, st2.Precision, len(st2.Runs))
	}
}

// Noise too wide for ±2% runs to max and says so.
func TestUntilCIMax(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, strings.Replace(untilCI, "MAX", "8", 1))
	st, err := plan.Run(context.Background(), p, &noisy{noise: 0.3}, plan.RunOptions{Dir: filepath.Join(tmp, "res"), Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if st.Precision == nil || st.Precision.Stop != "max" || st.Precision.Rounds != 8 || len(st.Runs) != 16 {
		t.Fatalf("precision %+v, %d runs", st.Precision, len(st.Runs))
	}
	if got := compare.PrecisionText(st.Precision); !strings.HasPrefix(got, "until-ci ±2%: 8 rounds (max) reached at ±") {
		t.Errorf("text %q", got)
	}
	// The rounds added past the first 6 are in the tables too.
	if md := readFile(t, filepath.Join(tmp, "res", plan.CompareFile)); strings.Count(md, "(n=8)") < 2 {
		t.Errorf("compare.md's cells are not of all 8 rounds:\n%s", md)
	}
}

func TestUntilCIProblems(t *testing.T) {
	for src, want := range map[string]string{
		strings.Replace(untilCI, "until_ci: 2%, min: 5, max: MAX", "min: 5", 1):                  "repetitions.until_ci: required",
		strings.Replace(untilCI, "until_ci: 2%, min: 5, max: MAX", "until_ci: two", 1):           `repetitions.until_ci: "two": want a width such as 2%`,
		strings.Replace(untilCI, "max: MAX", "max: 3", 1):                                        "repetitions.max: 3: below min 5",
		strings.Replace(untilCI, "min: 5, max: MAX", "min: 2, max: 4", 1):                        "needs 6 rounds at least",
		strings.Replace(untilCI, "max: MAX", "max: 10, budget: -1h", 1):                          "repetitions.budget: -1h0m0s: must be positive",
		strings.Replace(untilCI, "until_ci: 2%, min: 5, max: MAX", "until_ci: 2%, rounds: 3", 1): `unknown field "rounds"`,
	} {
		path := filepath.Join(t.TempDir(), "p.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := plan.Load(path, plan.Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
}
