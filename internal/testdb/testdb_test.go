package testdb

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
)

// These tests need no database server: they check how testdb finds the
// repository and what targets it builds.

func TestFindRepoRoot(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(root, "scripts", "testservers"))
	if err != nil {
		t.Fatalf("repo root %s: %v", root, err)
	}
	if st.Mode()&0o111 == 0 {
		t.Errorf("%s/scripts/testservers is not executable (mode %v)", root, st.Mode())
	}
}

func TestFindRepoRootSkipsOtherModules(t *testing.T) {
	top := t.TempDir()
	inner := filepath.Join(top, "a", "b")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(dir, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(top, "a"), "module example.com/other\n\ngo 1.26\n")
	if _, err := findRepoRoot(inner); err == nil {
		t.Fatalf("findRepoRoot(%s) found a root with only another module above", inner)
	}
	write(top, "// comment\nmodule "+modulePath+"\n\ngo 1.26\n")
	got, err := findRepoRoot(inner)
	if err != nil {
		t.Fatal(err)
	}
	if got != top {
		t.Errorf("findRepoRoot(%s) = %s, want %s", inner, got, top)
	}
}

// fresh copies a server description without its once-per-process state.
func fresh(s *server) *server {
	return &server{name: s.name, envVar: s.envVar, scheme: s.scheme, url: s.url}
}

func noEnv(string) string { return "" }

func TestFixedURLs(t *testing.T) {
	for _, tc := range []struct {
		s          *server
		host       string
		wantMode   string            // default_query_exec_mode
		wantParams map[string]string // other query parameters
	}{
		{postgresServer, "127.0.0.1:55432", "", nil},
		{mysqlServer, "127.0.0.1:53306", "", nil},
		{pgbouncerServer, "127.0.0.1:56432", "exec", nil},
		{mongoServer, "127.0.0.1:57017", "", map[string]string{"replicaSet": "rs0", "authSource": "admin"}},
	} {
		t.Run("server="+tc.s.name, func(t *testing.T) {
			started := 0
			target, err := fresh(tc.s).resolve(noEnv, func() error { started++; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if started != 1 {
				t.Errorf("start ran %d times, want 1", started)
			}
			if target.URL.Scheme != tc.s.scheme || target.Host() != tc.host || target.Username() != "bench" || target.URL.Path != "/bench" {
				t.Errorf("target %s: want %s://bench@%s/bench", target, tc.s.scheme, tc.host)
			}
			if got := target.Password.Reveal(); got != "bench-secret" {
				t.Errorf("password %q, want bench-secret", got)
			}
			if strings.Contains(target.String(), "bench-secret") {
				t.Errorf("String() reveals the password: %s", target)
			}
			if got := target.URL.Query().Get("default_query_exec_mode"); got != tc.wantMode {
				t.Errorf("default_query_exec_mode=%q, want %q", got, tc.wantMode)
			}
			for k, want := range tc.wantParams {
				if got := target.URL.Query().Get(k); got != want {
					t.Errorf("%s=%q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestEnvOverrides(t *testing.T) {
	s := fresh(postgresServer)
	getenv := func(k string) string {
		if k == s.envVar {
			return "mine=postgres://me:pw@db.example:5433/x?sslmode=require"
		}
		return ""
	}
	target, err := s.resolve(getenv, func() error {
		t.Error("start ran although the environment names a server")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if target.Label != "mine" || target.Host() != "db.example:5433" || target.Password.Reveal() != "pw" {
		t.Errorf("target %s (password %q), want mine=postgres://me@db.example:5433/x", target, target.Password.Reveal())
	}
}

func TestEnvWrongScheme(t *testing.T) {
	s := fresh(mysqlServer)
	getenv := func(k string) string {
		if k == s.envVar {
			return "postgres://me:pw@localhost/x"
		}
		return ""
	}
	_, err := s.resolve(getenv, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), s.envVar) {
		t.Fatalf("err = %v, want one naming %s", err, s.envVar)
	}
	if strings.Contains(err.Error(), "pw") {
		t.Errorf("error reveals the password: %v", err)
	}
}

func TestMongoEnv(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		wantErr     bool
	}{
		{"scheme=mongodb", "mine=mongodb://me:pw@db.example:27018/x?replicaSet=r", false},
		{"scheme=postgres", "postgres://me:pw@db.example/x", true},
		{"scheme=mongodb+srv", "mongodb+srv://me:pw@cluster.example/x", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fresh(mongoServer)
			getenv := func(k string) string {
				if k == s.envVar {
					return tc.value
				}
				return ""
			}
			target, err := s.resolve(getenv, func() error {
				t.Error("start ran although the environment names a server")
				return nil
			})
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), s.envVar) {
					t.Fatalf("err = %v, want one naming %s", err, s.envVar)
				}
				if strings.Contains(err.Error(), "pw") {
					t.Errorf("error reveals the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if target.Label != "mine" || target.Host() != "db.example:27018" || target.Username() != "me" || target.Password.Reveal() != "pw" {
				t.Errorf("target %s (password %q), want mine=mongodb://me@db.example:27018/x", target, target.Password.Reveal())
			}
			if strings.Contains(target.String(), "pw") {
				t.Errorf("String() reveals the password: %s", target)
			}
		})
	}
}

func TestMongoDatabaseTarget(t *testing.T) {
	for _, tc := range []struct {
		name, base     string
		wantAuthSource string // "" when the URL has no user
	}{
		{"authSource=kept", "mongodb://bench:pw@127.0.0.1:57017/bench?replicaSet=rs0&authSource=admin", "admin"},
		{"authSource=from-path", "mongodb://bench:pw@127.0.0.1:57017/bench?replicaSet=rs0", "bench"},
		{"authSource=admin-without-path", "mongodb://bench:pw@127.0.0.1:57017/?replicaSet=rs0", "admin"},
		{"user=none", "mongodb://127.0.0.1:57017/bench?replicaSet=rs0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, err := engine.ParseTarget("m="+tc.base, "", noEnv)
			if err != nil {
				t.Fatal(err)
			}
			before := base.URL.String()
			got := mongoDatabaseTarget(base, "bench_tabc")
			if got.URL.Path != "/bench_tabc" {
				t.Errorf("path %q, want /bench_tabc", got.URL.Path)
			}
			q := got.URL.Query()
			if a := q.Get("authSource"); a != tc.wantAuthSource {
				t.Errorf("authSource=%q, want %q (%s)", a, tc.wantAuthSource, got)
			}
			if r := q.Get("replicaSet"); r != "rs0" {
				t.Errorf("replicaSet=%q, want rs0", r)
			}
			if got.Label != "m" || got.Host() != "127.0.0.1:57017" || got.Username() != base.Username() || got.Password != base.Password {
				t.Errorf("got %s, want base's label, host, user and password", got)
			}
			if base.URL.String() != before {
				t.Errorf("base changed: %s, was %s", base.URL, before)
			}
		})
	}
}

func TestMongoConnectPasswordWithoutUser(t *testing.T) {
	target := engine.Target{URL: &url.URL{Scheme: "mongodb", Host: "127.0.0.1:1", Path: "/x"}, Password: engine.NewSecret("pw-123")}
	_, err := mongoConnect(target)
	if err == nil {
		t.Fatal("mongoConnect accepted a password without a user name")
	}
	if strings.Contains(err.Error(), "pw-123") {
		t.Errorf("error reveals the password: %v", err)
	}
}

func TestStartFailureIsReportedOnce(t *testing.T) {
	s := fresh(mysqlServer)
	boom := errors.New("mariadbd exited\nlog tail")
	calls := 0
	start := func() error { calls++; return boom }
	for i := range 2 {
		_, err := s.resolve(noEnv, start)
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), s.envVar) {
			t.Errorf("call %d: err = %v, want %v naming %s", i, err, boom, s.envVar)
		}
	}
	if calls != 1 {
		t.Errorf("start ran %d times, want 1", calls)
	}
}

func TestSQLite(t *testing.T) {
	target := SQLite(t)
	if target.URL.Scheme != "sqlite" || filepath.Base(target.URL.Path) != "test.db" {
		t.Fatalf("target %s, want sqlite:///…/test.db", target)
	}
	dir := filepath.FromSlash(filepath.Dir(target.URL.Path))
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("directory of %s: %v", target, err)
	}
	if _, err := os.Stat(filepath.FromSlash(target.URL.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("database file exists before the test made it (err %v)", err)
	}
	if !strings.HasPrefix(target.URL.String(), "sqlite:///") {
		t.Errorf("URL %s does not start with sqlite:///", target.URL)
	}
	if other := SQLite(t); other.URL.Path == target.URL.Path {
		t.Errorf("two SQLite targets share %s", other.URL.Path)
	}
}

func TestSQLitePathWithSpecialCharacters(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a b#c?d%", "test.db")
	target, err := sqliteTarget(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.FromSlash(target.URL.Path); got != p {
		t.Errorf("path %q, want %q", got, p)
	}
}
