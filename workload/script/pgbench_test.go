package script_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
)

// TestDistributionsMatchPgbench runs one script with pgbench itself and
// with the workload on the same PostgreSQL: both insert values drawn by
// random, random_exponential, random_gaussian, random_zipfian and permute
// (over a Zipfian draw, with a fixed seed), and for each function the two
// histograms must be samples of one distribution (a chi-square test of
// homogeneity). pgbench must be on the PATH: the test fails without it.
func TestDistributionsMatchPgbench(t *testing.T) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatalf("this test compares with pgbench, which is not on the PATH: %v", err)
	}
	ctx := context.Background()
	target := testdb.Isolated(t, testdb.Postgres(t))
	e := enginetest.Open(t, target)
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE drawn (src int, u int, e int, g int, z int, p int)"); err != nil {
		t.Fatal(err)
	}
	src := `\set u random(1, 20)
\set e random_exponential(1, 20, 3)
\set g random_gaussian(1, 20, 2.5)
\set z random_zipfian(1, 20, 1.5)
\set p permute(:z - 1, 20, 5) + 1
INSERT INTO drawn VALUES (:src, :u, :e, :g, :z, :p);
`
	file := filepath.Join(t.TempDir(), "draw.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const clients, perClient = 2, 4000

	// pgbench, in the test's schema.
	u := target.URL
	cmd := exec.CommandContext(ctx, pgbench, "-n", "-c", fmt.Sprint(clients), "-t", fmt.Sprint(perClient),
		"-f", file, "-D", "src=1", "-h", u.Hostname(), "-p", u.Port(), "-U", target.Username(), strings.TrimPrefix(u.Path, "/"))
	cmd.Env = append(os.Environ(), "PGPASSWORD="+target.Password.Reveal(),
		"PGOPTIONS=-c search_path="+u.Query().Get("search_path"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}

	// The workload, as many transactions on as many clients.
	w := parse(t, "--file", file, "-D", "src=2", "--protocol", "prepared")
	for id := 0; id < clients; id++ {
		k, err := w.NewWorker(ctx, enginetest.Connect(t, e), workload.WorkerEnv{ID: id, Seed: uint64(100 + id), Queries: &workload.Queries{}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < perClient; i++ {
			if _, err := k.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, col := range []string{"u", "e", "g", "z", "p"} {
		var counts [2][21]int
		err := c.QueryRows(ctx, "SELECT src, "+col+", COUNT(*) FROM drawn GROUP BY 1, 2", nil, func(r []any) error {
			s, v, n := r[0].(int64), r[1].(int64), r[2].(int64)
			if v < 1 || v > 20 {
				return fmt.Errorf("%s = %d out of [1, 20] (source %d)", col, v, s)
			}
			counts[s-1][v] = int(n)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		x, df := homogeneity(counts[0][1:], counts[1][1:])
		t.Logf("%s: pgbench %v\n   dbarena %v\n   chi-square %.1f, %d degrees of freedom", col, counts[0][1:], counts[1][1:], x, df)
		// Far in the tail of the chi-square distribution: a different
		// distribution over 8,000 draws lands orders of magnitude above.
		if limit := float64(df) + 6*math.Sqrt(2*float64(df)); x > limit {
			t.Errorf("%s: pgbench's and dbarena's values differ: chi-square %.1f above %.1f", col, x, limit)
		}
	}
}

// homogeneity is the chi-square statistic of two samples over the same
// bins (bins pooled until each holds at least 10 draws in all) and its
// degrees of freedom.
func homogeneity(a, b []int) (float64, int) {
	var pa, pb []int
	ca, cb := 0, 0
	for i := range a {
		ca, cb = ca+a[i], cb+b[i]
		if ca+cb >= 10 {
			pa, pb = append(pa, ca), append(pb, cb)
			ca, cb = 0, 0
		}
	}
	if ca+cb > 0 && len(pa) > 0 {
		pa[len(pa)-1] += ca
		pb[len(pb)-1] += cb
	}
	na, nb := 0, 0
	for i := range pa {
		na, nb = na+pa[i], nb+pb[i]
	}
	x := 0.0
	for i := range pa {
		col := float64(pa[i] + pb[i])
		ea := col * float64(na) / float64(na+nb)
		eb := col * float64(nb) / float64(na+nb)
		x += (float64(pa[i])-ea)*(float64(pa[i])-ea)/ea + (float64(pb[i])-eb)*(float64(pb[i])-eb)/eb
	}
	return x, len(pa) - 1
}
