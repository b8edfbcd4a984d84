package server

import (
	"slices"
	"syscall"
	"testing"
)

// Every kind defines what the core asks of it, and its names parse.
func TestKindDefinitions(t *testing.T) {
	if got, want := Kinds(), []Kind{Postgres, MariaDB, PgBouncer}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %q, want %q", got, want)
	}
	if got := kindNames(" or "); got != "postgres, mariadb or pgbouncer" {
		t.Errorf("kindNames = %q", got)
	}
	seen := map[string]Kind{}
	for _, d := range kinds {
		t.Run(string(d.kind), func(t *testing.T) {
			if !d.known() || d.find == nil || d.targetURL == nil || d.stopSignal == 0 || d.title == "" || len(d.reserved) == 0 {
				t.Errorf("incomplete definition: %+v", d)
			}
			if d.backend != "" && (!defOf(d.backend).known() || d.ownPrefix == "") {
				t.Errorf("backend %q unknown or no prefix for its own settings", d.backend)
			}
			for _, n := range append([]string{string(d.kind)}, d.aliases...) {
				if k, dup := seen[n]; dup {
					t.Errorf("name %q taken by %s too", n, k)
				}
				seen[n] = d.kind
				if k, err := ParseKind(n); err != nil || k != d.kind {
					t.Errorf("ParseKind(%q) = %q, %v", n, k, err)
				}
			}
		})
	}
	if d := defOf("oracle"); d.known() || d.stopSignal != syscall.SIGTERM {
		t.Errorf("an unknown kind: %+v", d)
	}
}

// The settings lists of the servers' programs are parsed per kind.
func TestKnownSettings(t *testing.T) {
	pg := defOf(Postgres).knownSettings([]byte("shared_buffers\tpostmaster\tResource\tINTEGER\nMax_WAL_Size\tsighup\tWAL\tINTEGER\n"))
	if !pg["shared_buffers"] || !pg["max_wal_size"] || len(pg) != 2 {
		t.Errorf("postgres: %v", pg)
	}
	my := defOf(MariaDB).knownSettings([]byte("mariadbd  Ver 10.11\nVariables (--variable-name=value)\nand boolean options {FALSE|TRUE}  Value (after reading options)\n------ ------\ninnodb-buffer-pool-size 134217728\nmax_connections 151\n\nafter the list\n"))
	if !my["innodb_buffer_pool_size"] || !my["max_connections"] || my["after"] {
		t.Errorf("mariadb: %v", my)
	}
	if got := defOf(PgBouncer).knownSettings([]byte("x\n")); len(got) != 0 {
		t.Errorf("pgbouncer lists nothing itself: %v", got)
	}
}
