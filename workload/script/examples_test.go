package script_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/runner"
)

// TestExampleScriptsOnEveryEngine runs the scripts of examples/scripts
// on PostgreSQL, MariaDB and SQLite under each protocol, with the tables
// their comments give; the counters equal their logs' sums afterwards.
func TestExampleScriptsOnEveryEngine(t *testing.T) {
	for _, db := range []struct {
		name    string
		target  func(t *testing.T) engine.Target
		threads int
	}{
		{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, 4},
		{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }, 4},
		{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }, 1},
	} {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			c := enginetest.Connect(t, e)
			for _, s := range []string{
				"CREATE TABLE counters (id int PRIMARY KEY, n bigint NOT NULL)",
				"INSERT INTO counters VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0), (9, 0), (10, 0)",
				"CREATE TABLE counter_log (id int NOT NULL, delta int NOT NULL)",
				"CREATE TABLE users (id int PRIMARY KEY, name varchar(40) NOT NULL, visits bigint NOT NULL)",
			} {
				if err := c.Exec(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			for i := 1; i <= 200; i++ {
				if err := c.Exec(ctx, fmt.Sprintf("INSERT INTO users VALUES (%d, 'user %d', 0)", i, i)); err != nil {
					t.Fatal(err)
				}
			}
			for _, protocol := range []string{"simple", "extended", "prepared"} {
				w := parse(t, "--file", "../../examples/scripts/counter.sql@1", "--file", "../../examples/scripts/read-mostly.sql@1",
					"-D", "users=200", "--protocol", protocol)
				res, err := runner.Run(ctx, e, w, runner.Config{Threads: db.threads, Duration: time.Second, Seed: 2}, nil)
				if err != nil {
					t.Fatalf("--protocol %s: %v", protocol, err)
				}
				t.Logf("--protocol %s: counter %d, read-mostly %d, %d errors, %d retries", protocol, res.Ops[0].Count, res.Ops[1].Count, res.Errors, res.Retries)
				if res.Ops[0].Count == 0 || res.Ops[1].Count == 0 || res.Errors != 0 {
					t.Errorf("--protocol %s: counter %d, read-mostly %d, %d errors", protocol, res.Ops[0].Count, res.Ops[1].Count, res.Errors)
				}
			}
			var wrong, logged, visits int64
			err := c.QueryRow(ctx, `SELECT
				(SELECT COUNT(*) FROM counters c WHERE c.n <> (SELECT COALESCE(SUM(delta), 0) FROM counter_log l WHERE l.id = c.id)),
				(SELECT COUNT(*) FROM counter_log),
				(SELECT SUM(visits) FROM users)`, nil, &wrong, &logged, &visits)
			if err != nil {
				t.Fatal(err)
			}
			if wrong != 0 || logged == 0 || visits == 0 {
				t.Errorf("%d counters differ from their logs; %d logged, %d visits", wrong, logged, visits)
			}
		})
	}
}
