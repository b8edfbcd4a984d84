package main

import (
	"context"
	"io"
	"net/url"
	"os"
	"strconv"
	"testing"

	"github.com/dbarena/dbarena/internal/testdb"
)

// A real measured run on the test PostgreSQL, of pgbench (which comes
// with the server): its summary parses, and its CPU, the server's and the
// host's are measured. A few seconds.
func TestTimedPgbenchRun(t *testing.T) {
	ctx := context.Background()
	tg := testdb.Postgres(t)
	u := *tg.URL
	u.User = url.UserPassword(u.User.Username(), tg.Password.Reveal())
	base := u.String()
	e := env{stdout: io.Discard, stderr: io.Discard, proc: os.DirFS("/proc"), getenv: func(k string) string {
		if k == "DBARENA_BENCH_PG" {
			return base
		}
		return ""
	}}
	b := &bench{env: e, name: "test", work: t.TempDir()}
	defer b.close()
	pg, err := openPG(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if pg.pid == 0 {
		t.Fatal("no postmaster pid found for the local test server")
	}
	p := &peersRun{b: b, pg: pg, suffix: "t" + strconv.Itoa(os.Getpid())}
	db := p.db("pgbench")
	if err := pg.createDB(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := p.run(ctx, "init", append(append([]string{"pgbench"}, p.pgbConn()...), "-i", "-q", "-s", "1", db)); err != nil {
		t.Fatal(err)
	}
	o, out, err := b.timed(ctx, "run", p.pointCmd(pointCase{conns: 2}, "pgbench", 1, ""), pg.libpqEnv(), pg.pid, pg.gone(ctx, db))
	if err != nil {
		t.Fatal(err)
	}
	s, err := parsePgbench(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Transactions <= 0 || o["proc_cpu_s"] <= 0 || o["server_cpu_s"] <= 0 || o["host_cpu_s"] < o["server_cpu_s"] || o["wall_s"] < 1 {
		t.Errorf("transactions %d, measured %v", s.Transactions, o)
	}
}
