package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
)

// serverInfo opens t and reads its server information.
func serverInfo(t *testing.T, tg engine.Target) engine.ServerInfo {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	info, err := e.ServerInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestServerInfoPgBouncer: behind PgBouncer the settings hold the
// pooler's own ("pgbouncer." keys, from its admin console's SHOW CONFIG)
// beside the PostgreSQL server's; a direct PostgreSQL has none of them.
func TestServerInfoPgBouncer(t *testing.T) {
	tg := testdb.PgBouncer(t)
	if tg.URL.Query().Get("default_query_exec_mode") == "" {
		tg = withParam(tg, "default_query_exec_mode", "exec")
	}
	info := serverInfo(t, tg)
	if !strings.HasPrefix(info.Settings["pgbouncer.version"], "PgBouncer ") {
		t.Errorf("pgbouncer.version %q", info.Settings["pgbouncer.version"])
	}
	for _, k := range []string{"pgbouncer.pool_mode", "pgbouncer.default_pool_size", "pgbouncer.max_client_conn"} {
		if info.Settings[k] == "" {
			t.Errorf("no %s in the settings", k)
		}
	}
	if info.Settings["shared_buffers"] == "" {
		t.Error("no PostgreSQL settings behind PgBouncer")
	}

	direct := serverInfo(t, testdb.Postgres(t))
	for k := range direct.Settings {
		if strings.HasPrefix(k, "pgbouncer.") {
			t.Errorf("a direct PostgreSQL has setting %s", k)
		}
	}
}
