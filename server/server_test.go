package server_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/mariadb"
	"github.com/dbarena/dbarena/server/postgres"
)

// These tests start real servers from the machine's binaries
// (scripts/testservers install puts them there). They fail, never skip,
// when the binaries are missing. Servers are kept small: the machine is
// shared.

// home is a data directory for one test. open: its parent directories
// are searchable by everyone, so that PostgreSQL's user (postgres, when
// the tests run as root) can reach the server's files there; otherwise
// they go to a directory of their own under /tmp.
func home(t *testing.T, open bool) string {
	t.Helper()
	h := t.TempDir()
	if open {
		for _, d := range []string{h, filepath.Dir(h)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return h
}

// start starts a server and stops it when the test ends.
func start(t *testing.T, spec server.Spec) *server.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := server.Start(ctx, spec)
	if err != nil {
		t.Fatalf("Start(%s %v): %v", spec.Kind, spec.Knobs, err)
	}
	t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return s
}

// show runs SHOW (or a one-value query) through dbarena's engine.
func show(t *testing.T, target engine.Target, query string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := engine.Open(ctx, target, engine.Options{})
	if err != nil {
		t.Fatalf("engine.Open(%s): %v", target, err)
	}
	defer e.Close()
	c, err := engine.ConnectSQL(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var v string
	if strings.HasPrefix(query, "SHOW GLOBAL VARIABLES") {
		var name string
		err = c.QueryRow(ctx, query, nil, &name, &v)
	} else {
		err = c.QueryRow(ctx, query, nil, &v)
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

// family lists pid and its descendants (PostgreSQL's backends have
// sessions of their own, so a process group does not hold them).
func family(t *testing.T, pid int) []int {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("PID %d", pid)
	}
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], n)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// assertGone checks that nothing of a stopped server is left: none of
// the processes (see family), none of its directories.
func assertGone(t *testing.T, pids []int, dirs ...string) {
	t.Helper()
	if len(pids) < 1 {
		t.Fatal("no processes to check")
	}
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil && !strings.Contains(string(b), ") Z ") {
			t.Errorf("process of the stopped server left: %s", b)
		}
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left (%v)", d, err)
		}
	}
}

func TestManagedPostgres(t *testing.T) {
	h := home(t, true)
	s := start(t, server.Spec{
		Kind:  postgres.ServerKind,
		Name:  "pg1",
		Knobs: []server.Knob{{Name: "shared_buffers", Value: "64MB"}, {Name: "max_wal_size", Value: "2GB"}, {Name: "work_mem", Value: "8192"}, {Name: "application_name", Value: `it's a\b`}},
		Home:  h,
	})
	if got := show(t, s.Target(), "SHOW shared_buffers"); got != "64MB" {
		t.Errorf("SHOW shared_buffers = %s, want 64MB", got)
	}
	if got := show(t, s.Target(), "SHOW max_wal_size"); got != "2GB" {
		t.Errorf("SHOW max_wal_size = %s, want 2GB", got)
	}
	if got := show(t, s.Target(), "SHOW listen_addresses"); got != "127.0.0.1" {
		t.Errorf("listen_addresses = %s", got)
	}
	if got := show(t, s.Target(), "SHOW fsync"); got != "on" {
		t.Errorf("fsync = %s: dbarena must not change settings it was not asked to", got)
	}
	if got := s.Settings(); got["shared_buffers"] != "64MB" || got["work_mem"] != "8MB" || got["application_name"] != `it's a\b` {
		t.Errorf("Settings() = %v", got)
	}
	if !s.Alive() || s.PID() <= 0 || !strings.HasPrefix(s.Version(), "PostgreSQL ") {
		t.Errorf("Alive %v, PID %d, Version %q", s.Alive(), s.PID(), s.Version())
	}
	if !strings.HasPrefix(s.DataDir(), filepath.Join(h, "servers", "pg1")) {
		t.Errorf("DataDir %s is not under %s", s.DataDir(), filepath.Join(h, "servers", "pg1"))
	}
	if _, err := os.Stat(filepath.Join(s.DataDir(), "PG_VERSION")); err != nil {
		t.Errorf("no cluster in DataDir: %v", err)
	}
	tg := s.Target()
	if tg.Label != "pg1" || tg.URL.Scheme != "postgres" || tg.Username() != "bench" || !tg.Password.IsSet() {
		t.Errorf("Target() = %s", tg)
	}
	pw, err := os.ReadFile(s.PasswordFile())
	if err != nil || strings.TrimSpace(string(pw)) != tg.Password.Reveal() {
		t.Errorf("password file: %v", err)
	}
	if fi, err := os.Stat(s.PasswordFile()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("password file mode: %v %v", fi.Mode(), err)
	}
	if strings.Contains(tg.String()+tg.Redacted(), tg.Password.Reveal()) {
		t.Errorf("the target prints its password")
	}

	// Another process finds it by name.
	l, err := server.Lookup(h, "pg1")
	if err != nil {
		t.Fatal(err)
	}
	if l.PID() != s.PID() || l.Port() != s.Port() || !l.Alive() || l.Target().Password.Reveal() != tg.Password.Reveal() {
		t.Errorf("Lookup: pid %d port %d alive %v", l.PID(), l.Port(), l.Alive())
	}
	list, err := server.List(h)
	if err != nil || len(list) != 1 || list[0].Name() != "pg1" {
		t.Errorf("List = %v, %v", list, err)
	}
	if _, err := server.Start(context.Background(), server.Spec{Kind: postgres.ServerKind, Name: "pg1", Home: h}); !errors.Is(err, server.ErrExists) {
		t.Errorf("a second pg1: %v, want ErrExists", err)
	}

	pids, dirs := family(t, s.PID()), []string{s.Dir(), s.DataDir()}
	if len(pids) < 3 {
		t.Errorf("postmaster %d has %d children, want its background processes", s.PID(), len(pids)-1)
	}
	if err := l.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertGone(t, pids, dirs...)
	if s.Alive() || l.Alive() {
		t.Errorf("alive after Stop")
	}
	if _, err := server.Lookup(h, "pg1"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("Lookup after Stop: %v, want ErrNotFound", err)
	}
}

// A bad knob is an error naming it, and leaves nothing behind.
func TestManagedPostgresBadKnob(t *testing.T) {
	for _, tc := range []struct {
		name  string
		knobs []server.Knob
		want  []string
	}{
		{"typo", []server.Knob{{Name: "shared_bufers", Value: "1GB"}}, []string{"shared_bufers=1GB", "unrecognized"}},
		{"rejected value", []server.Knob{{Name: "shared_buffers", Value: "banana"}}, []string{"shared_buffers=banana", "invalid value"}},
		{"two rejected values", []server.Knob{{Name: "shared_buffers", Value: "banana"}, {Name: "work_mem", Value: "1XB"}},
			[]string{"shared_buffers=banana", "work_mem=1XB", `Valid units for this parameter are "B", "kB"`}},
		{"placeholder", []server.Knob{{Name: "auto_explain.log_min_duration", Value: "10"}}, []string{"auto_explain.log_min_duration=10", "not in pg_settings"}},
		{"rounded away", []server.Knob{{Name: "shared_buffers", Value: "64MB"}, {Name: "huge_pages", Value: "maybe"}}, []string{"huge_pages=maybe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home(t, false)
			_, err := server.Start(context.Background(), server.Spec{Kind: postgres.ServerKind, Knobs: tc.knobs, Home: h})
			if err == nil {
				t.Fatal("started")
			}
			if !errors.Is(err, server.ErrKnob) || !errors.Is(err, server.ErrStart) {
				t.Errorf("error does not match ErrKnob and ErrStart: %v", err)
			}
			var ke *server.KnobError
			if !errors.As(err, &ke) || ke.Kind != postgres.ServerKind {
				t.Errorf("no *KnobError in %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			ents, _ := os.ReadDir(filepath.Join(h, "servers"))
			if len(ents) > 0 {
				t.Errorf("left behind in %s: %v", h, ents)
			}
		})
	}
}

func TestManagedPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	h := home(t, false)
	for _, k := range server.Kinds() {
		t.Run(string(k), func(t *testing.T) {
			_, err := server.Start(context.Background(), server.Spec{Kind: k, Port: port, Home: h})
			if !errors.Is(err, server.ErrPortInUse) || !strings.Contains(err.Error(), strconv.Itoa(port)) {
				t.Errorf("err = %v, want ErrPortInUse naming port %d", err, port)
			}
		})
	}
	if ents, _ := os.ReadDir(filepath.Join(h, "servers")); len(ents) > 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestManagedNotInstalled(t *testing.T) {
	for k, pkg := range map[server.Kind]string{postgres.ServerKind: "postgresql-15", mariadb.ServerKind: "mariadb-server", postgres.BouncerKind: "pgbouncer"} {
		t.Run(string(k), func(t *testing.T) {
			_, err := server.Start(context.Background(), server.Spec{Kind: k, BinDir: "/nonexistent/bin", Home: t.TempDir()})
			if !errors.Is(err, server.ErrNotInstalled) || !strings.Contains(err.Error(), "apt-get install "+pkg) {
				t.Errorf("err = %v, want ErrNotInstalled naming %s", err, pkg)
			}
		})
	}
}

// A server whose process died is not Alive, and LogTail says why.
func TestManagedServerDied(t *testing.T) {
	s := start(t, server.Spec{Kind: postgres.ServerKind, Knobs: []server.Knob{{Name: "shared_buffers", Value: "16MB"}}, Home: home(t, false)})
	if err := syscall.Kill(s.PID(), syscall.SIGQUIT); err != nil { // immediate shutdown
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for s.Alive() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if s.Alive() {
		t.Fatal("still alive after SIGQUIT")
	}
	if tail := s.LogTail(5); !strings.Contains(tail, "immediate shutdown") {
		t.Errorf("LogTail(5) = %q", tail)
	}
	if n := strings.Count(s.LogTail(3), "\n"); n > 2 {
		t.Errorf("LogTail(3) has %d lines", n+1)
	}
}

func TestManagedMariaDB(t *testing.T) {
	h := home(t, false)
	s := start(t, server.Spec{Kind: mariadb.ServerKind, Knobs: []server.Knob{{Name: "innodb_buffer_pool_size", Value: "64M"}, {Name: "max-connections", Value: "50"}}, Home: h})
	tg := s.Target()
	if tg.URL.Scheme != "mysql" || tg.Label != "mariadb" {
		t.Errorf("Target() = %s", tg)
	}
	if got := show(t, tg, "SHOW GLOBAL VARIABLES LIKE 'innodb_buffer_pool_size'"); got != "67108864" {
		t.Errorf("innodb_buffer_pool_size = %s, want 67108864", got)
	}
	if got := show(t, tg, "SHOW GLOBAL VARIABLES LIKE 'max_connections'"); got != "50" {
		t.Errorf("max_connections = %s, want 50", got)
	}
	if got := show(t, tg, "SELECT COUNT(*) FROM mysql.user WHERE user = 'root' AND (host <> 'localhost' OR plugin = '' AND authentication_string = '')"); got != "0" {
		t.Errorf("%s root accounts without a password or over TCP", got)
	}
	if !s.Alive() || s.PID() <= 0 || !strings.Contains(s.Version(), "MariaDB") {
		t.Errorf("Alive %v, PID %d, version %q", s.Alive(), s.PID(), s.Version())
	}
	innodbTableID(t, tg)
	pids, dirs := family(t, s.PID()), []string{s.Dir(), s.DataDir()}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertGone(t, pids, dirs...)

	for _, tc := range []struct{ knob, want string }{
		{"innodb_bufer_pool_size=64M", "unknown variable"},
		{"innodb_buffer_pool_size=banana", "innodb_buffer_pool_size=banana"},
		{"max_connections=0", "the server reports max_connections = 10"},
	} {
		t.Run("bad "+tc.knob, func(t *testing.T) {
			k, _ := server.ParseKnob(tc.knob)
			_, err := server.Start(context.Background(), server.Spec{Kind: mariadb.ServerKind, Knobs: []server.Knob{k}, Home: h})
			if !errors.Is(err, server.ErrKnob) || !strings.Contains(err.Error(), tc.knob) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want ErrKnob naming %s and %q", err, tc.knob, tc.want)
			}
			if ents, _ := os.ReadDir(filepath.Join(h, "servers")); len(ents) > 0 {
				t.Errorf("left behind: %v", ents)
			}
		})
	}
}

// PgBouncer in front of its own PostgreSQL, then of a named one.
func TestManagedPgBouncer(t *testing.T) {
	h := home(t, false)
	b := start(t, server.Spec{Kind: postgres.BouncerKind, Home: h, Knobs: []server.Knob{
		{Name: "shared_buffers", Value: "16MB"}, {Name: "pgbouncer.default_pool_size", Value: "20"},
	}})
	tg := b.Target()
	if q := tg.URL.Query(); q.Get("default_query_exec_mode") != "exec" || tg.Label != "pgbouncer" {
		t.Errorf("Target() = %s, want default_query_exec_mode=exec", tg)
	}
	if got := show(t, tg, "SHOW shared_buffers"); got != "16MB" {
		t.Errorf("SHOW shared_buffers through PgBouncer = %s", got)
	}
	if got := b.Settings(); got["pgbouncer.default_pool_size"] != "20" || got["shared_buffers"] != "16MB" {
		t.Errorf("Settings() = %v", got)
	}
	be := b.Backend()
	if be == nil || !b.OwnsBackend() || !be.Alive() || !b.Alive() {
		t.Fatalf("backend %v", be)
	}
	if list, _ := server.List(h); len(list) != 1 {
		t.Errorf("List shows %d servers, want the pgbouncer only", len(list))
	}

	// Through a throw-away connection per statement, prepared statements
	// of pgx's exec mode work behind transaction pooling.
	ctx := context.Background()
	e, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := 0; i < 3; i++ {
		c, err := engine.ConnectSQL(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Prepare(ctx, "SELECT ? + 1")
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := st.QueryRow(ctx, []any{int64(i)}, &n); err != nil || n != int64(i)+1 {
			t.Errorf("prepared statement through PgBouncer: %d, %v", n, err)
		}
		c.Close()
	}

	// In front of a named PostgreSQL; stopping the PgBouncer leaves it.
	pg := start(t, server.Spec{Kind: postgres.ServerKind, Name: "pgb", Home: h, Knobs: []server.Knob{{Name: "shared_buffers", Value: "16MB"}}})
	_, err = server.Start(ctx, server.Spec{Kind: postgres.BouncerKind, Backend: "pgb", Home: h, Knobs: []server.Knob{{Name: "shared_buffers", Value: "1GB"}}})
	if !errors.Is(err, server.ErrBadSpec) || !strings.Contains(err.Error(), "shared_buffers=1GB") {
		t.Errorf("a backend knob with a named backend: %v", err)
	}
	_, err = server.Start(ctx, server.Spec{Kind: postgres.BouncerKind, Backend: "pgb", Home: h, Knobs: []server.Knob{{Name: "pgbouncer.default_pool_sise", Value: "5"}}})
	if !errors.Is(err, server.ErrKnob) || !strings.Contains(err.Error(), "pgbouncer.default_pool_sise=5") {
		t.Errorf("a typo in a PgBouncer knob: %v", err)
	}
	nb := start(t, server.Spec{Kind: postgres.BouncerKind, Name: "pb", Backend: "pgb", Home: h})
	if got := show(t, nb.Target(), "SELECT current_setting('shared_buffers')"); got != "16MB" {
		t.Errorf("through pb: shared_buffers %s", got)
	}
	if nb.Target().Password.Reveal() != pg.Target().Password.Reveal() {
		t.Errorf("PgBouncer's password is not its backend's")
	}
	pids := family(t, nb.PID())
	if err := nb.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	assertGone(t, pids, nb.Dir())
	if !pg.Alive() {
		t.Errorf("stopping pb stopped its named backend")
	}

	pids, dirs := append(family(t, b.PID()), family(t, be.PID())...), []string{b.Dir(), be.DataDir(), b.DataDir()}
	if err := b.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	assertGone(t, pids, dirs...)
}

// innodbTableID checks, on a MariaDB whose user may read InnoDB's
// catalogue (PROCESS, which the managed server's bench has), that a
// table's identity holds InnoDB's table id, which tells a copy of the
// table (CREATE TABLE … LIKE, renamed into its place) from it even within
// the second of its creation time.
func innodbTableID(t *testing.T, tg engine.Target) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c, err := engine.ConnectSQL(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cat := c.Catalog()
	if err := cat.CreateTable(ctx, &schema.Table{Name: "ident", Columns: []schema.Column{{Name: "id", Type: schema.BigInt}}, PrimaryKey: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	id, err := cat.Identity(ctx, "ident")
	if err != nil || engine.IdentityValue(id, "table_id") == "" {
		t.Fatalf("Identity = %q, %v; want a table_id", id, err)
	}
	for _, q := range []string{"CREATE TABLE ident_copy LIKE ident", "DROP TABLE ident", "RENAME TABLE ident_copy TO ident"} {
		if err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	now, err := cat.Identity(ctx, "ident")
	if err != nil || engine.IdentityValue(now, "table_id") == engine.IdentityValue(id, "table_id") || engine.CompareIdentity(id, now, false).Other == "" {
		t.Errorf("the copy's identity %q, the table's %q (%v): want another table_id", now, id, err)
	}
}
