package server_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/postgres"
)

// Managed PostgreSQL servers start by version: 18 from the build
// scripts/testservers fetches, 15 from Debian's package, side by side;
// each answers SELECT version() with its own and records it, and is
// named after its label (label-<random> while the label is taken).
func TestStartVersions(t *testing.T) {
	testdb.Postgres18(t)
	h := home(t, true)
	// data_checksums is initdb's to set: on by default from 18 on, off
	// before; either way as asked.
	for _, tc := range []struct{ version, label, want, checksums string }{
		{"18", "pgv18", "PostgreSQL 18.", "off"},
		{"15", "pgv15", "PostgreSQL 15.", "on"},
		{"18.6", "pgv18", "PostgreSQL 18.6 ", ""},
	} {
		spec := server.Spec{Kind: postgres.ServerKind, Version: tc.version, Label: tc.label, Home: h}
		wantSums := "on" // 18's default
		if tc.checksums != "" {
			spec.Knobs, wantSums = []server.Knob{{Name: "data_checksums", Value: tc.checksums}}, tc.checksums
		}
		s := start(t, spec)
		if got := show(t, s.Target(), "SELECT version()"); !strings.HasPrefix(got, tc.want) {
			t.Errorf("version %s: SELECT version() = %q, want %s…", tc.version, got, tc.want)
		}
		if got := show(t, s.Target(), "SHOW data_checksums"); got != wantSums {
			t.Errorf("version %s, data_checksums=%s: SHOW data_checksums = %s", tc.version, tc.checksums, got)
		}
		if !strings.HasPrefix(s.Version()+" ", strings.TrimSuffix(tc.want, ".")) {
			t.Errorf("version %s: recorded %q", tc.version, s.Version())
		}
		if !s.ThrowAway() {
			t.Errorf("version %s: a labelled server is still a throw-away one", tc.version)
		}
		t.Logf("version %s: %s, %s, from %s", tc.version, s.Name(), s.Version(), s.RunDir())
	}
	list, err := server.List(h)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name()+" "+s.Version())
	}
	got := strings.Join(names, "\n")
	if !regexp.MustCompile(`^pgv15 PostgreSQL 15\.\d+.*\npgv18 PostgreSQL 18\.\d+\npgv18-[0-9a-f]{6} PostgreSQL 18\.6$`).MatchString(got) {
		t.Errorf("servers:\n%s", got)
	}
}

// A PgBouncer's own PostgreSQL is of the version the PgBouncer is asked
// for.
func TestStartPgBouncerVersion(t *testing.T) {
	testdb.Postgres18(t)
	s := start(t, server.Spec{Kind: postgres.BouncerKind, Version: "18", Home: home(t, true)})
	if b := s.Backend(); b == nil || !strings.HasPrefix(b.Version(), "PostgreSQL 18.") {
		t.Fatalf("backend %+v", b)
	}
	if got := show(t, s.Target(), "SELECT version()"); !strings.HasPrefix(got, "PostgreSQL 18.") {
		t.Errorf("through PgBouncer: SELECT version() = %q", got)
	}
}

// As root, PostgreSQL runs as user postgres: programs in a directory it
// cannot enter (root's home, say) are refused before initdb, naming the
// directory and the user.
func TestStartUnreachablePrograms(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the server to another user")
	}
	private := filepath.Join(t.TempDir(), "private")
	bin := filepath.Join(private, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"initdb", "postgres"} {
		if err := os.Symlink("/usr/lib/postgresql/15/bin/"+p, filepath.Join(bin, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	h := home(t, true)
	_, err := server.Start(context.Background(), server.Spec{Kind: postgres.ServerKind, BinDir: bin, Home: h})
	if !errors.Is(err, server.ErrNotInstalled) || !strings.Contains(err.Error(), bin) || !strings.Contains(err.Error(), "user postgres") {
		t.Fatalf("err = %v", err)
	}
	if list, _ := server.List(h); len(list) != 0 {
		t.Errorf("left behind: %v", list)
	}
}
