package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/internal/testdb"
)

// Smaller bad inputs: each is refused with an error naming the flag or
// field and its value, and the exit code of its class.
func TestBadTargetInput(t *testing.T) {
	ctx := context.Background()
	pg := testdb.Postgres(t)
	my := testdb.MySQL(t)
	sq := sqliteURL(t)
	pgAt := func(host, db string) string {
		u := *pg.URL
		u.Host, u.Path = host, "/"+db
		return "postgres://" + pg.Username() + ":" + pg.Password.Reveal() + "@" + u.Host + u.Path + "?" + u.RawQuery
	}
	myAt := func(host, db string) string {
		return "mysql://" + my.Username() + ":" + my.Password.Reveal() + "@" + host + "/" + db
	}
	dir := t.TempDir()
	noDir := filepath.Join(dir, "nonexistent", "dir", "x.db")
	pwFile := filepath.Join(dir, "no-such-password-file")
	versionPlan := filepath.Join(dir, "versions.yaml")
	if err := os.WriteFile(versionPlan, []byte("targets:\n  - label: pg\n    url: managed:postgres\n    knobs:\n      version: [15, 3]\nworkloads:\n  - name: oltp_point_select\nthreads: [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in stderr
	}{
		{"postgres port out of range", []string{"run", "oltp_point_select", "--target", "postgres://u:hunter2@127.0.0.1:99999/db"}, cli.ExitUsage, []string{"port", "99999"}},
		{"mysql port out of range", []string{"run", "oltp_point_select", "--target", "mysql://u:hunter2@127.0.0.1:99999/db"}, cli.ExitUsage, []string{"port", "99999"}},
		{"port not a number", []string{"run", "oltp_point_select", "--target", "postgres://u:hunter2@127.0.0.1:5x/db"}, cli.ExitUsage, []string{"port", "5x"}},
		{"empty target", []string{"run", "oltp_point_select", "--target", ""}, cli.ExitUsage, []string{"--target", "empty"}},
		{"sqlite directory missing", []string{"prepare", "oltp_point_select", "--target", "sqlite://" + noDir}, cli.ExitUsage, []string{"path", filepath.Dir(noDir), "does not exist"}},
		{"postgres url at mariadb", []string{"run", "oltp_point_select", "--target", pgAt(my.Host(), "bench")}, cli.ExitTarget, []string{my.Host(), "does not speak the PostgreSQL protocol", "MySQL"}},
		{"mysql url at postgresql", []string{"run", "oltp_point_select", "--target", myAt(pg.Host(), "bench")}, cli.ExitTarget, []string{pg.Host(), "does not speak the MySQL protocol", "PostgreSQL"}},
		{"password file missing, url has a password", []string{"run", "oltp_point_select", "--target", "postgres://u:hunter2@127.0.0.1:1/db", "--password-file", pwFile}, cli.ExitUsage, []string{"password-file", pwFile}},
		{"report interval 0", []string{"run", "oltp_point_select", "--report-interval", "0", "--target", sq}, cli.ExitUsage, []string{"--report-interval 0s"}},
		{"max errors with tolerate errors", []string{"run", "oltp_point_select", "--max-errors", "5", "--tolerate-errors", "--target", sq}, cli.ExitUsage, []string{"--max-errors 5", "--tolerate-errors"}},
		{"rate not positive", []string{"run", "oltp_point_select", "--rate", "0", "--target", sq}, cli.ExitUsage, []string{"--rate 0", "positive"}},
		{"until ci not a width", []string{"run", "oltp_point_select", "--until-ci", "two", "--target", sq}, cli.ExitUsage, []string{"--until-ci \"two\"", "want a width such as 2%"}},
		{"until ci max below min", []string{"run", "oltp_point_select", "--until-ci", "2%", "--until-ci-min", "8", "--until-ci-max", "7", "--target", sq}, cli.ExitUsage, []string{"--until-ci-max 7: below --until-ci-min 8"}},
		{"until ci with tries", []string{"run", "docolap", "--tries", "3", "--until-ci", "2%", "--target", sq}, cli.ExitUsage, []string{"--until-ci 2%: not with --tries"}},
		{"until ci budget alone", []string{"run", "oltp_point_select", "--until-ci-budget", "1h", "--target", sq}, cli.ExitUsage, []string{"--until-ci-budget 1h0m0s: only with --until-ci"}},
		{"provisioned iops negative", []string{"run", "oltp_point_select", "--provisioned-iops", "-3000", "--target", sq}, cli.ExitUsage, []string{"--provisioned-iops -3000", "positive"}},
		{"rate not a number", []string{"run", "oltp_point_select", "--rate", "fast", "--target", sq}, cli.ExitUsage, []string{"--rate", "fast"}},
		{"rate stages malformed", []string{"run", "oltp_point_select", "--rate-stages", "30s", "--target", sq}, cli.ExitUsage, []string{"--rate-stages", "30s"}},
		{"rate stages against time", []string{"run", "oltp_point_select", "--rate-stages", "5s:100,5s:0", "--time", "20s", "--target", sq}, cli.ExitUsage, []string{"--rate-stages 5s:100,5s:0", "--time 20s", "give --time 10s"}},
		{"arrival unknown", []string{"run", "oltp_point_select", "--rate", "10", "--arrival", "bursty", "--target", sq}, cli.ExitUsage, []string{"--arrival bursty", "poisson or uniform"}},
		{"max queue without rate", []string{"run", "oltp_point_select", "--max-queue", "10", "--target", sq}, cli.ExitUsage, []string{"--max-queue 10", "needs --rate"}},
		{"latency limit negative", []string{"run", "oltp_point_select", "--rate", "10", "--latency-limit", "-1s", "--target", sq}, cli.ExitUsage, []string{"--latency-limit -1s", "negative"}},
		{"postgres database missing", []string{"run", "oltp_point_select", "--target", pgAt(pg.Host(), "no_such_db_x")}, cli.ExitTarget, []string{": database: ", "no_such_db_x", "does not exist"}},
		{"mysql database missing", []string{"run", "oltp_point_select", "--target", myAt(my.Host(), "no_such_db_x")}, cli.ExitTarget, []string{": database: ", "no_such_db_x", "does not exist"}},
		{"shard malformed", []string{"run", "oltp_point_select", "--shard", "3/3", "--run-id", "r", "--target", sq}, cli.ExitUsage, []string{"--shard 3/3", "from 0 to 2"}},
		{"shard without run id", []string{"prepare", "oltp_point_select", "--shard", "0/2", "--target", sq}, cli.ExitUsage, []string{"--shard 0/2", "--run-id"}},
		{"run id without shard", []string{"check", "oltp_point_select", "--run-id", "r1", "--target", sq}, cli.ExitUsage, []string{"--run-id r1", "only with --shard"}},
		{"shards with tries", []string{"run", "docolap", "--tries", "3", "--shard", "0/2", "--run-id", "r", "--target", sq}, cli.ExitUsage, []string{"--shard 0/2", "--tries"}},
		{"shards on sqlite", []string{"run", "oltp_point_select", "--shard", "0/2", "--run-id", "r", "--target", sq}, cli.ExitUsage, []string{"embedded engine", "every shard reaches"}},
		{"shards on a managed server", []string{"prepare", "oltp_point_select", "--shard", "1/2", "--run-id", "r", "--target", "managed:postgres"}, cli.ExitUsage, []string{"managed:postgres", "each of the 2 shards"}},
		{"managed version unknown", []string{"run", "oltp_point_select", "--target", "managed:postgres?version=3"}, cli.ExitTarget, []string{"version 3: no PostgreSQL 3 on this machine; found 15.", "(/usr/lib/postgresql/15/bin)", "scripts/testservers install"}},
		{"managed version malformed", []string{"run", "oltp_point_select", "--target", "managed:postgres?version=eighteen"}, cli.ExitUsage, []string{`version "eighteen"`, "want a major version (18)"}},
		{"managed version on mariadb", []string{"run", "oltp_point_select", "--target", "managed:mariadb?version=11"}, cli.ExitUsage, []string{"version 11", "mariadb servers take no version"}},
		{"managed version twice", []string{"run", "oltp_point_select", "--target", "managed:postgres?version=15&version=18"}, cli.ExitUsage, []string{"version given twice (15, 18)"}},
		{"server start version unknown", []string{"server", "start", "postgres", "--version", "3"}, cli.ExitTarget, []string{"version 3: no PostgreSQL 3 on this machine", "found 15."}},
		{"server start version malformed", []string{"server", "start", "postgres", "--version", "18.x"}, cli.ExitUsage, []string{`version "18.x"`}},
		{"plan version unknown", []string{"plan", "show", versionPlan}, cli.ExitUsage, []string{versionPlan, "version 3: no PostgreSQL 3 on this machine"}},
		{"merge from without run id", []string{"merge", "--from", sq, "-o", filepath.Join(dir, "m.json")}, cli.ExitUsage, []string{"--from needs --run-id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			o := dbarena(t, ctx, nil, tc.args...)
			took := time.Since(start)
			if o.code != tc.code {
				t.Errorf("exit %d, want %d: %s", o.code, tc.code, o.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr %q lacks %q", o.stderr, w)
				}
			}
			if strings.Contains(o.stderr, "%!") {
				t.Errorf("a formatting error in %q", o.stderr)
			}
			for _, pw := range []string{"hunter2", pg.Password.Reveal(), my.Password.Reveal()} {
				if pw != "" && strings.Contains(o.stderr+o.stdout, pw) {
					t.Errorf("password printed: %q", o.stderr)
				}
			}
			if strings.Contains(tc.name, "at postgresql") && took > 5*time.Second {
				t.Errorf("took %v to find a PostgreSQL server behind a mysql URL (the connect timeout is 10 s)", took)
			}
		})
	}
	if _, err := os.Stat(filepath.Dir(noDir)); err == nil {
		t.Errorf("the missing directory of a sqlite target was created")
	}
}

// Without a data directory (no DBARENA_HOME, XDG_DATA_HOME or HOME) the
// embedded default target and managed servers have nowhere to live: a
// usage error saying which variables to set.
func TestNoDataDirectory(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"run", "oltp_point_select", "--time", "1"},
		{"prepare", "oltp_point_select"},
		{"run", "oltp_point_select", "--time", "1", "--target", "managed:postgres"},
	} {
		o := dbarena(t, ctx, map[string]string{"DBARENA_HOME": ""}, args...)
		if o.code != cli.ExitUsage || !strings.Contains(o.stderr, "set DBARENA_HOME or HOME") {
			t.Errorf("%v: exit %d, want %d with the variables named: %s", args, o.code, cli.ExitUsage, o.stderr)
		}
	}
}
