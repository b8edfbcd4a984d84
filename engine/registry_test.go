package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
)

// These tests need the real engines' registrations: aliases and password
// variables belong to the engine packages.

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, label, redacted, password string
		env                           map[string]string
	}{
		{in: "postgres://bench:secret@127.0.0.1:5432/bench", label: "postgres", redacted: "postgres://bench@127.0.0.1:5432/bench", password: "secret"},
		{in: "pg16=postgresql://bench:secret@h/db?sslmode=disable", label: "pg16", redacted: "postgres://bench@h/db?sslmode=disable", password: "secret"},
		{in: "mariadb://u@h:3306/db", label: "mysql", redacted: "mysql://u@h:3306/db", password: "envpw", env: map[string]string{"MYSQL_PWD": "envpw"}},
		{in: "postgres://u@h/db", label: "postgres", redacted: "postgres://u@h/db", password: "pgpw", env: map[string]string{"PGPASSWORD": "pgpw", "MYSQL_PWD": "no"}},
		{in: "lite=sqlite:///tmp/x.db", label: "lite", redacted: "sqlite:///tmp/x.db"},
		{in: "postgres://u@h/db?password=qs", label: "postgres", redacted: "postgres://u@h/db?password=xxxxx"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := engine.ParseTarget(tc.in, "", env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if got.Label != tc.label || got.Redacted() != tc.redacted || got.Password.Reveal() != tc.password {
				t.Errorf("got label %q url %q password %q; want %q %q %q", got.Label, got.Redacted(), got.Password.Reveal(), tc.label, tc.redacted, tc.password)
			}
		})
	}
}

func TestPasswordFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(f, []byte("filepw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := engine.ParseTarget("postgres://u@h/db", f, env(map[string]string{"PGPASSWORD": "envpw"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.Password.Reveal() != "filepw" {
		t.Errorf("password = %q, want the file's", got.Password.Reveal())
	}
	_, err = engine.ParseTarget("postgres://u@h/db", filepath.Join(t.TempDir(), "none"), nil)
	if err == nil || !strings.Contains(err.Error(), "password-file") {
		t.Errorf("missing password file: %v, want an error naming password-file", err)
	}
}

// Every alias an engine registers is rewritten to its name; schemes that
// mean something else to the driver are kept.
func TestAliasesNormalised(t *testing.T) {
	for _, tc := range []struct{ in, scheme string }{
		{"postgresql://u@h/db", "postgres"},
		{"postgres://u@h/db", "postgres"},
		{"mariadb://u@h/db", "mysql"},
		{"mysql://u@h/db", "mysql"},
		{"mongodb+srv://u@cluster.example/db", "mongodb+srv"},
		{"mongodb://u@h/db", "mongodb"},
		{"sqlite:///tmp/x.db", "sqlite"},
		{"oracle://u@h/db", "oracle"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := engine.ParseTarget(tc.in, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.URL.Scheme != tc.scheme {
				t.Errorf("scheme %q, want %q", got.URL.Scheme, tc.scheme)
			}
		})
	}
}

// The password variable is the engine's own, whichever of its schemes the
// URL uses; engines without one read none.
func TestPasswordEnv(t *testing.T) {
	vars := env(map[string]string{"PGPASSWORD": "pg", "MYSQL_PWD": "my"})
	for _, tc := range []struct{ in, want string }{
		{"postgres://u@h/db", "pg"},
		{"postgresql://u@h/db", "pg"},
		{"mysql://u@h/db", "my"},
		{"mariadb://u@h/db", "my"},
		{"mongodb://u@h/db", ""},
		{"sqlite:///tmp/x.db", ""},
		{"postgres://u:url@h/db", "url"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := engine.ParseTarget(tc.in, "", vars)
			if err != nil {
				t.Fatal(err)
			}
			if got.Password.Reveal() != tc.want {
				t.Errorf("password %q, want %q", got.Password.Reveal(), tc.want)
			}
		})
	}
	if got, want := engine.PasswordEnvs(), []string{"MYSQL_PWD", "PGPASSWORD"}; !slices.Equal(got, want) {
		t.Errorf("PasswordEnvs() = %q, want %q", got, want)
	}
}

func TestRegistry(t *testing.T) {
	if got, want := engine.Schemes(), []string{"mongodb", "mongodb+srv", "mysql", "postgres", "sqlite"}; !slices.Equal(got, want) {
		t.Errorf("Schemes() = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		scheme, name string
		family       engine.Family
	}{
		{"postgresql", "postgres", engine.FamilySQL},
		{"mariadb", "mysql", engine.FamilySQL},
		{"sqlite", "sqlite", engine.FamilySQL},
		{"mongodb+srv", "mongodb", engine.FamilyMongo},
	} {
		r, ok := engine.Lookup(tc.scheme)
		if !ok || r.Name != tc.name || r.Family != tc.family || r.Open == nil {
			t.Errorf("Lookup(%q) = %q %q %v, want %q %q", tc.scheme, r.Name, r.Family, ok, tc.name, tc.family)
		}
	}
	if _, ok := engine.Lookup("oracle"); ok {
		t.Error(`Lookup("oracle") found an engine`)
	}
}

// An unknown scheme is refused by Open with the known schemes listed.
func TestOpenUnknownScheme(t *testing.T) {
	tg, err := engine.ParseTarget("oracle://scott:tiger@h/db", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.Open(context.Background(), tg, engine.Options{})
	if !errors.Is(err, engine.ErrUnknownScheme) {
		t.Fatalf("Open = %v, want ErrUnknownScheme", err)
	}
	const want = `target oracle://scott@h/db: scheme: unknown target scheme "oracle" (known: [mongodb mongodb+srv mysql postgres sqlite])`
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
}

// A --password-file is read even when the URL has a password: a missing
// file is named, and a password given two ways is refused.
func TestPasswordFileWithURLPassword(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	_, err := engine.ParseTarget("postgres://u:urlpw@h/db", missing, nil)
	if err == nil || !strings.Contains(err.Error(), "password-file") || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing password file beside a URL password: %v, want an error naming password-file and %s", err, missing)
	}
	f := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(f, []byte("filepw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = engine.ParseTarget("postgres://u:urlpw@h/db", f, nil)
	if err == nil || !strings.Contains(err.Error(), "password-file") || strings.Contains(err.Error(), "urlpw") || strings.Contains(err.Error(), "filepw") {
		t.Errorf("password in the URL and in a file: %v, want a refusal naming password-file", err)
	}
}
