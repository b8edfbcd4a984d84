package server_test

import (
	"context"
	"net/url"
	"slices"
	"syscall"
	"testing"

	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/mariadb"
	"github.com/dbarena/dbarena/server/postgres"
)

// Every kind the engines register defines what the core asks of it, and
// its names parse.
func TestKindDefinitions(t *testing.T) {
	if got, want := server.Kinds(), []server.Kind{postgres.ServerKind, mariadb.ServerKind, postgres.BouncerKind}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %q, want %q", got, want)
	}
	if got := server.KindNames(" or "); got != "postgres, mariadb or pgbouncer" {
		t.Errorf("kindNames = %q", got)
	}
	seen := map[string]server.Kind{}
	for _, k := range server.Kinds() {
		d := server.DefOf(k)
		t.Run(string(k), func(t *testing.T) {
			if !server.Known(d) || d.Find == nil || d.TargetURL == nil || d.StopSignal == 0 || d.Title == "" || len(d.Reserved) == 0 {
				t.Errorf("incomplete definition: %+v", d)
			}
			if d.Backend != "" && (!server.Known(server.DefOf(d.Backend)) || d.OwnPrefix == "") {
				t.Errorf("backend %q unknown or no prefix for its own settings", d.Backend)
			}
			for _, n := range append([]string{string(d.Kind)}, d.Aliases...) {
				if k, dup := seen[n]; dup {
					t.Errorf("name %q taken by %s too", n, k)
				}
				seen[n] = d.Kind
				if k, err := server.ParseKind(n); err != nil || k != d.Kind {
					t.Errorf("ParseKind(%q) = %q, %v", n, k, err)
				}
			}
		})
	}
	if d := server.DefOf("oracle"); server.Known(d) || d.StopSignal != syscall.SIGTERM {
		t.Errorf("an unknown kind: %+v", d)
	}
}

// The settings lists of the servers' programs are parsed per kind.
func TestKnownSettings(t *testing.T) {
	pg := server.KnownSettings(server.DefOf(postgres.ServerKind), []byte("shared_buffers\tpostmaster\tResource\tINTEGER\nMax_WAL_Size\tsighup\tWAL\tINTEGER\n"))
	if !pg["shared_buffers"] || !pg["max_wal_size"] || len(pg) != 2 {
		t.Errorf("postgres: %v", pg)
	}
	my := server.KnownSettings(server.DefOf(mariadb.ServerKind), []byte("mariadbd  Ver 10.11\nVariables (--variable-name=value)\nand boolean options {FALSE|TRUE}  Value (after reading options)\n------ ------\ninnodb-buffer-pool-size 134217728\nmax_connections 151\n\nafter the list\n"))
	if !my["innodb_buffer_pool_size"] || !my["max_connections"] || my["after"] {
		t.Errorf("mariadb: %v", my)
	}
	if got := server.KnownSettings(server.DefOf(postgres.BouncerKind), []byte("x\n")); len(got) != 0 {
		t.Errorf("pgbouncer lists nothing itself: %v", got)
	}
}

// RegisterKind refuses, as a programming error, an incomplete definition
// and a name or alias already taken; the registry stays as it was.
func TestRegisterKindRefuses(t *testing.T) {
	complete := func(kind server.Kind, aliases ...string) *server.KindDef {
		return &server.KindDef{Kind: kind, Title: "X", Aliases: aliases, StopSignal: syscall.SIGTERM,
			Find:      func(server.Spec) (server.Binaries, error) { return server.Binaries{}, nil },
			Start:     func(context.Context, *server.Starting) error { return nil },
			TargetURL: func(*url.URL) {}}
	}
	incomplete := complete("x1")
	incomplete.Start = nil
	frontless := complete("x2")
	frontless.Backend = postgres.ServerKind
	for name, d := range map[string]*server.KindDef{
		"taken name":                   complete(postgres.ServerKind),
		"taken alias":                  complete("x3", "pg"),
		"an alias twice":               complete("x4", "y", "y"),
		"upper case":                   complete("X5"),
		"no Start":                     incomplete,
		"a backend without its prefix": frontless,
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterKind(%+v) did not panic", d)
				}
			}()
			server.RegisterKind(d)
		})
	}
	if got := server.KindNames(", "); got != "postgres, mariadb, pgbouncer" {
		t.Errorf("kinds after the refusals: %s", got)
	}
}
