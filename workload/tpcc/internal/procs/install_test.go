package procs

import (
	"context"
	"errors"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
)

// installed counts the five objects (all overloads on PostgreSQL) in the
// connection's schema or database.
func installed(t *testing.T, c engine.SQLConn) int64 {
	t.Helper()
	q := "SELECT count(*) FROM information_schema.routines WHERE routine_schema = DATABASE() AND routine_name IN (?, ?, ?, ?, ?)"
	if c.Dialect().Name() == "postgres" {
		q = "SELECT count(*) FROM pg_proc WHERE pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND proname IN (?, ?, ?, ?, ?)"
	}
	args := make([]any, len(Names))
	for i, n := range Names {
		args[i] = n
	}
	var n int64
	if err := c.QueryRow(context.Background(), q, args, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestInstallUninstall(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		e := enginetest.Open(t, testdb.Isolated(t, s.target(t)))
		c := enginetest.Connect(t, e)
		createSchema(t, c)

		if err := Uninstall(ctx, c); err != nil {
			t.Fatalf("Uninstall before Install: %v", err)
		}
		if _, err := Prepare(ctx, c); err == nil {
			t.Error("Prepare succeeded without the server objects")
		} else {
			t.Logf("Prepare without the server objects: %v", err)
		}
		if s.name == "postgres" {
			// A stale overload from another version is replaced.
			if err := c.Exec(ctx, "CREATE FUNCTION tpcc_new_order(integer) RETURNS integer LANGUAGE sql AS 'SELECT 42'"); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 2 {
			if err := Install(ctx, c); err != nil {
				t.Fatalf("Install #%d: %v", i+1, err)
			}
			if n := installed(t, c); n != 5 {
				t.Fatalf("after Install #%d: %d objects, want 5", i+1, n)
			}
		}
		k, err := Prepare(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		// Empty tables: Delivery finds nothing to deliver.
		if err := k.DeliveryTx(ctx, 1, 1, t1); err != nil {
			t.Errorf("DeliveryTx on empty tables: %v", err)
		}
		// Another connection sees them too.
		other := enginetest.Connect(t, e)
		if _, err := Prepare(ctx, other); err != nil {
			t.Errorf("Prepare on another connection: %v", err)
		}

		for i := range 2 {
			if err := Uninstall(ctx, c); err != nil {
				t.Fatalf("Uninstall #%d: %v", i+1, err)
			}
			if n := installed(t, c); n != 0 {
				t.Fatalf("after Uninstall #%d: %d objects left", i+1, n)
			}
		}
		if err := k.DeliveryTx(ctx, 1, 1, t1); err == nil {
			t.Error("DeliveryTx succeeded after Uninstall")
		}
	})
}

func TestSQLiteUnsupported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := enginetest.Connect(t, enginetest.Open(t, testdb.SQLite(t)))
	if err := Install(ctx, c); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Install: %v, want ErrUnsupported", err)
	}
	if err := Uninstall(ctx, c); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Uninstall: %v, want ErrUnsupported", err)
	}
	if k, err := Prepare(ctx, c); !errors.Is(err, ErrUnsupported) || k != nil {
		t.Errorf("Prepare: %v, %v; want nil, ErrUnsupported", k, err)
	}
	if got, want := ErrUnsupported.Error(), "sqlite has no stored procedures; use --mode client"; got != want {
		t.Errorf("ErrUnsupported = %q, want %q", got, want)
	}
}

// TestPostgresQueryExecModes runs every call through each of pgx's query
// exec modes other than the default (which the other tests use): behind
// PgBouncer in transaction mode dbarena runs in exec mode, where the
// arguments go as text of unknown type and the server resolves the
// function from them.
func TestPostgresQueryExecModes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := newEnv(t, servers[0])
	for i, mode := range []string{"exec", "describe_exec", "cache_describe", "simple_protocol"} {
		t.Run("mode="+mode, func(t *testing.T) {
			target := v.target
			u := *target.URL
			q := u.Query()
			q.Set("default_query_exec_mode", mode)
			u.RawQuery = q.Encode()
			target.URL = &u
			c := enginetest.Connect(t, enginetest.Open(t, target))
			k, err := Prepare(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // statement caches are filled by the first call
				if rb, err := k.NewOrderTx(ctx, 1, 1, 1, []int64{1, 2}, []int64{1, 2}, []int64{1, 1}, t1); err != nil || rb {
					t.Fatalf("NewOrderTx = %v, %v", rb, err)
				}
				if rb, err := k.NewOrderTx(ctx, 1, 1, 1, []int64{1, 100001}, []int64{1, 1}, []int64{1, 1}, t1); err != nil || !rb {
					t.Fatalf("NewOrderTx with an unused item = %v, %v", rb, err)
				}
				if err := k.PaymentTx(ctx, 1, 1, 1, 1, 0, "OUGHTPRES", 10.5, t1); err != nil {
					t.Fatalf("PaymentTx: %v", err)
				}
				if err := k.OrderStatusTx(ctx, 1, 1, 0, "OUGHTPRES"); err != nil {
					t.Fatalf("OrderStatusTx: %v", err)
				}
				if err := k.DeliveryTx(ctx, 1, 1, t1); err != nil {
					t.Fatalf("DeliveryTx: %v", err)
				}
				if _, err := k.StockLevelTx(ctx, 1, 1, 20); err != nil {
					t.Fatalf("StockLevelTx: %v", err)
				}
			}
			if got, want := v.nextOID(t, 1, 1), int64(4+2*(i+1)); got != want {
				t.Errorf("d_next_o_id = %d, want %d", got, want)
			}
			var amount float64
			v.queryRow(t, "SELECT h_amount FROM history ORDER BY h_amount LIMIT 1", nil, &amount)
			if !money(amount, 10.5) {
				t.Errorf("h_amount = %v, want 10.50", amount)
			}
		})
	}
}
