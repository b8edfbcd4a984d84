package script_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
)

// distributionDraws is how many values of each function the test
// against pgbench draws through each tool.
const distributionDraws = 20000

// TestDistributionsMatchPgbench runs one script with pgbench itself and
// with the workload on the same PostgreSQL: both insert values drawn by
// random, random_exponential, random_gaussian, random_zipfian and permute
// (over a Zipfian draw, with a fixed seed), and for each function the two
// histograms must be samples of one distribution (a chi-square test of
// homogeneity, at significance homogeneityAlpha). The test fails
// without pgbench (pgbenchPath).
func TestDistributionsMatchPgbench(t *testing.T) {
	pgbench := pgbenchPath(t)
	ctx := context.Background()
	target := testdb.Isolated(t, testdb.Postgres(t))
	e := enginetest.Open(t, target)
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE drawn (src int, u int, e int, g int, z int, p int)"); err != nil {
		t.Fatal(err)
	}
	// Each transaction draws and inserts rowsPerTxn rows, and commits
	// without waiting for its WAL flush: the test's time goes to drawing.
	const rowsPerTxn = 10
	var b strings.Builder
	var rows []string
	for i := range rowsPerTxn {
		fmt.Fprintf(&b, `\set u%[1]d random(1, 20)
\set e%[1]d random_exponential(1, 20, 3)
\set g%[1]d random_gaussian(1, 20, 2.5)
\set z%[1]d random_zipfian(1, 20, 1.5)
\set p%[1]d permute(:z%[1]d - 1, 20, 5) + 1
`, i)
		rows = append(rows, fmt.Sprintf("(:src, :u%[1]d, :e%[1]d, :g%[1]d, :z%[1]d, :p%[1]d)", i))
	}
	src := b.String() + "INSERT INTO drawn VALUES " + strings.Join(rows, ", ") + ";\n"
	file := filepath.Join(t.TempDir(), "draw.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const clients, perClient = 2, distributionDraws / 2 / rowsPerTxn

	// pgbench, in the test's schema.
	u := target.URL
	cmd := exec.CommandContext(ctx, pgbench, "-n", "-c", fmt.Sprint(clients), "-t", fmt.Sprint(perClient),
		"-f", file, "-D", "src=1", "-h", u.Hostname(), "-p", u.Port(), "-U", target.Username(), strings.TrimPrefix(u.Path, "/"))
	cmd.Env = append(os.Environ(), "PGPASSWORD="+target.Password.Reveal(),
		"PGOPTIONS=-c search_path="+u.Query().Get("search_path")+" -c synchronous_commit=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}

	// The workload, as many transactions on as many clients.
	w := parse(t, "--file", file, "-D", "src=2", "--protocol", "prepared")
	for id := 0; id < clients; id++ {
		wc := enginetest.Connect(t, e)
		if err := wc.Exec(ctx, "SET synchronous_commit = off"); err != nil {
			t.Fatal(err)
		}
		k, err := startWorker(ctx, w, wc, workload.WorkerEnv{ID: id, Seed: uint64(100 + id), Queries: &workload.Queries{}})
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
		x, df, p := homogeneity(counts[0][1:], counts[1][1:])
		t.Logf("%s: pgbench %v\n   dbarena %v\n   chi-square %.1f, %d degrees of freedom, p %.3g", col, counts[0][1:], counts[1][1:], x, df, p)
		// TestHomogeneityTellsDistributionsApart shows that at this
		// sample size a slightly different distribution has p far below.
		if p <= homogeneityAlpha {
			t.Errorf("%s: pgbench's and dbarena's values differ: chi-square %.1f with %d degrees of freedom, p %.3g, not above %g", col, x, df, p, homogeneityAlpha)
		}
	}
}
