package runner_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/mysql"
	_ "github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp"
)

// withApp names the target's connections so that a test can find its
// own workers among the shared server's sessions.
func withApp(tg engine.Target, app string) engine.Target {
	u := *tg.URL
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	tg.URL = &u
	return tg
}

func oltpWorkload(t *testing.T, args ...string) workload.Workload {
	t.Helper()
	m, ok := workload.Lookup("oltp_read_write")
	if !ok {
		t.Fatal("oltp_read_write is not registered")
	}
	w := m.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

// prepared opens tg and prepares a small oltp_read_write on it, with an
// admin connection of its own.
func prepared(t *testing.T, tg engine.Target) (engine.Engine, engine.SQLConn) {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := load.Prepare(ctx, eng, oltpWorkload(t, "--tables", "1", "--table-size", "1000"), load.PrepareConfig{}); err != nil {
		t.Fatal(err)
	}
	admin, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return eng, admin
}

// When the server drops the workers' connections mid-run, each lost
// connection is replaced and counted as a reconnection, not as an error:
// the run goes on, within the default --max-errors 0, whether the client
// threads wait on epoll or on io_uring.
func TestReconnectAfterTerminatedBackends(t *testing.T) {
	for _, io := range []string{runner.ClientIOEpoll, runner.ClientIORing} {
		t.Run(io, func(t *testing.T) { reconnectAfterTerminatedBackends(t, io) })
	}
}

func reconnectAfterTerminatedBackends(t *testing.T, io string) {
	ctx := context.Background()
	app := fmt.Sprintf("dbarena_reconnect_%d", time.Now().UnixNano())
	eng, admin := prepared(t, withApp(testdb.Isolated(t, testdb.Postgres(t)), app))

	killed := make(chan int64, 1)
	time.AfterFunc(700*time.Millisecond, func() {
		var n int64
		err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()", []any{app}, &n)
		if err != nil {
			t.Errorf("terminating backends: %v", err)
		}
		killed <- n
	})
	w := oltpWorkload(t, "--tables", "1", "--table-size", "1000")
	run, err := runWithPolicy(ctx, eng, w, runner.Config{Threads: 2, ClientIO: io, Duration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := <-killed
	if n < 2 {
		t.Fatalf("terminated %d backends, want the 2 workers'", n)
	}
	if run.Status != result.StatusComplete || run.Reconnects < 2 || run.Errors != 0 {
		t.Errorf("status %s, %d reconnects, %d errors; want complete, ≥ 2, 0", run.Status, run.Reconnects, run.Errors)
	}
	if wantIO := map[string]string{runner.ClientIORing: runner.ClientIORing}[io]; run.ClientIO != wantIO {
		t.Errorf("client_io %q, want %q", run.ClientIO, wantIO)
	}
	// Work continued after the reconnects.
	last := run.Intervals[len(run.Intervals)-1]
	if last.Transactions == 0 {
		t.Errorf("no transactions in the last interval: %+v", last)
	}
}

// One worker's connection killed by the server (pg_terminate_backend,
// KILL CONNECTION) does not end an 8-thread run with --max-errors 0: it
// is a reconnection, not an error.
func TestOneLostConnectionIsNotAnError(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) (engine.Engine, func(ctx context.Context) (int64, error))
	}{
		{"postgres", func(t *testing.T) (engine.Engine, func(context.Context) (int64, error)) {
			app := fmt.Sprintf("dbarena_lost_%d", time.Now().UnixNano())
			eng, admin := prepared(t, withApp(testdb.Isolated(t, testdb.Postgres(t)), app))
			return eng, func(ctx context.Context) (int64, error) {
				var n int64
				err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid() LIMIT 1) w", []any{app}, &n)
				return n, err
			}
		}},
		{"mysql", func(t *testing.T) (engine.Engine, func(context.Context) (int64, error)) {
			tg := testdb.Isolated(t, testdb.MySQL(t))
			db, err := url.PathUnescape(tg.URL.Path[1:])
			if err != nil {
				t.Fatal(err)
			}
			eng, admin := prepared(t, tg)
			return eng, func(ctx context.Context) (int64, error) {
				var id int64
				if err := admin.QueryRow(ctx, "SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID() ORDER BY id LIMIT 1", []any{db}, &id); err != nil {
					return 0, err
				}
				return 1, admin.Exec(ctx, fmt.Sprintf("KILL CONNECTION %d", id))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng, kill := tc.open(t)
			killed := make(chan int64, 1)
			time.AfterFunc(700*time.Millisecond, func() {
				n, err := kill(ctx)
				if err != nil {
					t.Errorf("killing a worker's connection: %v", err)
				}
				killed <- n
			})
			w := oltpWorkload(t, "--tables", "1", "--table-size", "1000")
			run, err := runWithPolicy(ctx, eng, w, runner.Config{Threads: 8, Duration: 2 * time.Second}, nil)
			if n := <-killed; n != 1 {
				t.Fatalf("killed %d connections, want one worker's", n)
			}
			if err != nil {
				t.Fatalf("run failed: %v", err)
			}
			if run.Status != result.StatusComplete || run.Reconnects != 1 || run.Errors != 0 {
				t.Errorf("status %s, %d reconnects, %d errors; want complete, 1, 0", run.Status, run.Reconnects, run.Errors)
			}
		})
	}
}
