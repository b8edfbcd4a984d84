package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/mariadb"
	"github.com/dbarena/dbarena/server/postgres"
)

func TestVersionMatches(t *testing.T) {
	for _, tc := range []struct {
		version, want string
		ok            bool
	}{
		{"18.6", "18", true},
		{"18.6", "18.6", true},
		{"18.0", "18", true},
		{"18.6", "18.5", false},
		{"18.6", "1", false},
		{"1.8", "18", false},
		{"180.1", "18", false},
		{"15.18", "15.1", false},
		{"9.6.24", "9.6", true},
		{"9.6", "9.6.24", false},
		{"18", "18", true},
		{"", "18", false},
		{"18.6", "", false},
	} {
		if got := server.VersionMatches(tc.version, tc.want); got != tc.ok {
			t.Errorf("VersionMatches(%q, %q) = %v, want %v", tc.version, tc.want, got, tc.ok)
		}
	}
}

// The newest install of the version asked for is picked; none is an
// error naming the version, every install found and where, and the help.
func TestPickInstall(t *testing.T) {
	installs := []server.Install{
		{Dir: "/usr/lib/postgresql/15/bin", Version: "15.18"},
		{Dir: "/opt/pg18.2/bin", Version: "18.2"},
		{Dir: "/cache/postgres-18.6.3/bin", Version: "18.6"},
		{Dir: "/opt/other18.6/bin", Version: "18.6"},
		{Dir: "/broken/bin", Problem: "exec format error"},
	}
	for _, tc := range []struct{ want, dir string }{
		{"18", "/cache/postgres-18.6.3/bin"},
		{"18.6", "/cache/postgres-18.6.3/bin"},
		{"18.2", "/opt/pg18.2/bin"},
		{"15", "/usr/lib/postgresql/15/bin"},
		{"15.18", "/usr/lib/postgresql/15/bin"},
	} {
		in, err := server.PickInstall(installs, tc.want, "PostgreSQL", "install it")
		if err != nil || in.Dir != tc.dir {
			t.Errorf("PickInstall(%s) = %+v, %v; want %s", tc.want, in, err, tc.dir)
		}
	}
	_, err := server.PickInstall(installs, "17", "PostgreSQL", "scripts/testservers install fetches 18")
	if !errors.Is(err, server.ErrNotInstalled) {
		t.Fatalf("err = %v, want ErrNotInstalled", err)
	}
	for _, w := range []string{"version 17: no PostgreSQL 17 on this machine", "15.18 (/usr/lib/postgresql/15/bin)", "18.6 (/cache/postgres-18.6.3/bin)",
		"unknown version: exec format error (/broken/bin)", "; scripts/testservers install fetches 18"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
	if _, err := server.PickInstall(nil, "18", "PostgreSQL", ""); err == nil || !strings.Contains(err.Error(), "found none") {
		t.Errorf("no installs: %v", err)
	}
}

// A version is checked before anything runs: its form, and whether the
// kind takes one.
func TestSpecVersionValidate(t *testing.T) {
	for _, tc := range []struct {
		spec server.Spec
		want string // "" for none
	}{
		{server.Spec{Kind: postgres.ServerKind, Version: "18"}, ""},
		{server.Spec{Kind: postgres.ServerKind, Version: "18.6"}, ""},
		{server.Spec{Kind: postgres.BouncerKind, Version: "18"}, ""}, // its own PostgreSQL's
		{server.Spec{Kind: postgres.ServerKind, Version: "eighteen"}, `version "eighteen": want a major version (18) or an exact one (18.6)`},
		{server.Spec{Kind: postgres.ServerKind, Version: "18."}, `version "18."`},
		{server.Spec{Kind: mariadb.ServerKind, Version: "11"}, "version 11: mariadb servers take no version"},
		{server.Spec{Kind: postgres.BouncerKind, Version: "18", Backend: "pg1"}, "version 18: PostgreSQL pg1 runs already"},
	} {
		tc.spec.Home = t.TempDir()
		errs := tc.spec.Validate()
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%+v: %v", tc.spec, errs)
		case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) || !errors.Is(errs[0], server.ErrBadSpec)):
			t.Errorf("%+v: %v, want one ErrBadSpec with %q", tc.spec, errs, tc.want)
		}
	}
}

// A version no install has is found without starting anything, for
// PgBouncer's own PostgreSQL too.
func TestCheckVersion(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []server.Kind{postgres.ServerKind, postgres.BouncerKind} {
		err := server.CheckVersion(ctx, server.Spec{Kind: kind, Version: "3"})
		if !errors.Is(err, server.ErrNotInstalled) || !strings.Contains(err.Error(), "no PostgreSQL 3 on this machine") {
			t.Errorf("%s: %v", kind, err)
		}
	}
	if err := server.CheckVersion(ctx, server.Spec{Kind: postgres.ServerKind}); err != nil {
		t.Errorf("no version: %v", err)
	}
}

func TestLabelName(t *testing.T) {
	for label, want := range map[string]string{
		"pg15":                  "pg15",
		"pg-version=15":         "pg-version-15",
		"pg/procedure-dbt5":     "pg-procedure-dbt5",
		"=x:y":                  "x-y",
		"_a_":                   "a",
		"":                      "",
		"==":                    "",
		strings.Repeat("a", 70): strings.Repeat("a", 56),
	} {
		if got := server.LabelName(label); got != want {
			t.Errorf("LabelName(%q) = %q, want %q", label, got, want)
		}
	}
}
