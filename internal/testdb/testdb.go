// Package testdb hands integration tests the database servers they need.
//
// It is the one way tests find servers (STYLE.md rule 15). Postgres, MySQL,
// PgBouncer and Mongo each return an engine.Target:
//
//   - When DBARENA_TEST_POSTGRES, DBARENA_TEST_MYSQL, DBARENA_TEST_PGBOUNCER
//     or DBARENA_TEST_MONGO is set, its value (a dbarena target, "url" or
//     "label=url") is used as is. `scripts/testservers env` prints these
//     variables for the servers it runs; `make test` exports them.
//   - Otherwise testdb runs `<repo root>/scripts/testservers start <server>`
//     once per test process, which starts (or finds already running) a
//     throw-away server on a fixed loopback port, and uses that server's
//     fixed URL. The script takes a file lock, so test binaries of several
//     packages starting at once are safe.
//
// When a server cannot be had, the test fails with t.Fatalf and the
// script's output. It never skips: a test that needs a server and silently
// does not run is worse than a red one.
//
// The servers are shared by every test process: tests must create uniquely
// named tables (or, on MariaDB and MongoDB, databases named bench_…; on
// PostgreSQL, schemas), and clean up after themselves. Isolated hands out
// such a database or schema.
//
// SQLite returns a fresh database file in the test's temporary directory.
// Postgres18 makes sure of the PostgreSQL 18 install that tests start
// managed servers from.
//
// testdb imports only engine, the standard library and the MongoDB driver
// (to drop Isolated's MongoDB databases): it never imports an engine
// implementation, so every engine package can use it in its tests.
package testdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// modulePath identifies this repository's go.mod.
const modulePath = "github.com/dbarena/dbarena"

// startTimeout bounds one run of scripts/testservers: on a fresh machine it
// installs Debian packages first.
const startTimeout = 15 * time.Minute

// server is one kind of test server and the once-per-process attempt to
// start it.
type server struct {
	name   string // argument of scripts/testservers start
	envVar string // environment variable that overrides the URL
	scheme string // URL scheme the target must have
	url    string // URL of the server scripts/testservers starts

	once sync.Once
	err  error // result of the start, shared by every caller
}

var (
	postgresServer = &server{
		name:   "postgres",
		envVar: "DBARENA_TEST_POSTGRES",
		scheme: "postgres",
		url:    "postgres://bench:bench-secret@127.0.0.1:55432/bench?sslmode=disable",
	}
	mysqlServer = &server{
		name:   "mysql",
		envVar: "DBARENA_TEST_MYSQL",
		scheme: "mysql",
		url:    "mysql://bench:bench-secret@127.0.0.1:53306/bench",
	}
	pgbouncerServer = &server{
		name:   "pgbouncer",
		envVar: "DBARENA_TEST_PGBOUNCER",
		scheme: "postgres",
		// PgBouncer in transaction mode cannot keep pgx's cached prepared
		// statements: exec mode describes and executes unnamed ones.
		url: "postgres://bench:bench-secret@127.0.0.1:56432/bench?sslmode=disable&default_query_exec_mode=exec",
	}
	mongoServer = &server{
		name:   "mongo",
		envVar: "DBARENA_TEST_MONGO",
		scheme: "mongodb",
		// A one-node replica set: multi-document transactions need one.
		url: "mongodb://bench:bench-secret@127.0.0.1:57017/bench?replicaSet=rs0&authSource=admin",
	}
)

// Postgres returns the PostgreSQL 15 test server (user bench, database bench;
// the throw-away server's bench is a superuser). It fails t when no server
// can be had. It is safe for concurrent use.
func Postgres(t testing.TB) engine.Target {
	t.Helper()
	return postgresServer.target(t)
}

// MySQL returns the MariaDB test server (user bench with all privileges on
// database bench and on databases named bench_…). It fails t when no server
// can be had. It is safe for concurrent use.
func MySQL(t testing.TB) engine.Target {
	t.Helper()
	return mysqlServer.target(t)
}

// PgBouncer returns the PgBouncer test server (transaction pooling, in front
// of the PostgreSQL test server). Its URL selects pgx's exec query mode,
// which works behind transaction pooling. It fails t when no server can be
// had. It is safe for concurrent use.
func PgBouncer(t testing.TB) engine.Target {
	t.Helper()
	return pgbouncerServer.target(t)
}

// Mongo returns the MongoDB 6.0 test server: a one-node replica set rs0
// (so sessions and multi-document transactions work) with authentication;
// user bench is a root user of admin, and the URL selects database bench. It
// fails t when no server can be had. It is safe for concurrent use.
func Mongo(t testing.TB) engine.Target {
	t.Helper()
	return mongoServer.target(t)
}

// postgres18 is the PostgreSQL 18 build scripts/testservers fetches:
// an install managed servers start from, not a server.
var postgres18 = &server{name: "postgres18"}

// Postgres18 makes sure the machine has PostgreSQL 18, for tests that
// start managed PostgreSQL 18 servers (server.Spec.Version "18"): it runs
// `scripts/testservers start postgres18` once per test process, which
// fetches PostgreSQL 18.6 into the cache where the managed servers find
// it unless it is there. It fails t when it cannot. It is safe for
// concurrent use.
func Postgres18(t testing.TB) {
	t.Helper()
	postgres18.once.Do(func() { postgres18.err = postgres18.start() })
	if postgres18.err != nil {
		t.Fatalf("testdb: no PostgreSQL 18: %v", postgres18.err)
	}
}

// SQLite returns a target for a new, empty database file test.db in a
// directory of its own that is removed when t ends.
func SQLite(t testing.TB) engine.Target {
	t.Helper()
	target, err := sqliteTarget(filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatalf("testdb: sqlite: %v", err)
	}
	return target
}

func sqliteTarget(path string) (engine.Target, error) {
	u := url.URL{Scheme: "sqlite", Path: filepath.ToSlash(path)}
	return engine.ParseTarget(u.String(), "", os.Getenv)
}

func (s *server) target(t testing.TB) engine.Target {
	t.Helper()
	target, err := s.resolve(os.Getenv, s.start)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	t.Logf("testdb: %s server %s", s.name, target)
	return target
}

// resolve finds the server's target: from its environment variable when
// set, else by calling start (once per process) and using the fixed URL.
func (s *server) resolve(getenv func(string) string, start func() error) (engine.Target, error) {
	raw, fromEnv := getenv(s.envVar), true
	if raw == "" {
		fromEnv = false
		s.once.Do(func() { s.err = start() })
		if s.err != nil {
			return engine.Target{}, fmt.Errorf("no %s server (set %s to use one of yours): %w", s.name, s.envVar, s.err)
		}
		raw = s.url
	}
	target, err := engine.ParseTarget(raw, "", getenv)
	if err != nil { // the error redacts the password
		if fromEnv {
			return engine.Target{}, fmt.Errorf("%s: %w", s.envVar, err)
		}
		return engine.Target{}, err
	}
	if target.URL.Scheme != s.scheme {
		return engine.Target{}, fmt.Errorf("%s: scheme %q, want %q (%s)", s.envVar, target.URL.Scheme, s.scheme, target.Redacted())
	}
	return target, nil
}

// start runs scripts/testservers start <name>.
func (s *server) start() error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	script := filepath.Join(root, "scripts", "testservers")
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "start", s.name)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	// The servers run on as daemons; should one keep our pipe open, do not
	// wait for it forever.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s start %s: %w\n%s", script, s.name, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// repoRoot walks up from the working directory (a package directory under
// go test) to the directory whose go.mod declares this module.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return findRepoRoot(wd)
}

func findRepoRoot(dir string) (string, error) {
	for d := dir; ; {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && declaresModule(b, modulePath) {
			return d, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("looking for the repository root: %w", err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod of module %s in %s or above", modulePath, dir)
		}
		d = parent
	}
}

func declaresModule(gomod []byte, path string) bool {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == path {
			return true
		}
	}
	return false
}
