package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"
)

// serverURL is $envVar, else the URL of the local test server `name`
// that scripts/testservers starts (or finds running).
func (b *bench) serverURL(ctx context.Context, envVar, name, testVar string) (string, error) {
	if u := b.getenv(envVar); u != "" {
		return u, nil
	}
	script := filepath.Join(b.root, "scripts", "testservers")
	b.logf("starting (or reusing) the test server: scripts/testservers start %s", name)
	cmd := exec.CommandContext(ctx, script, "start", name)
	cmd.Stdout, cmd.Stderr = b.stderr, b.stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("scripts/testservers start %s: %w", name, err)
	}
	out, err := exec.CommandContext(ctx, script, "env").Output()
	if err != nil {
		return "", fmt.Errorf("scripts/testservers env: %w", err)
	}
	if v := parseExports(string(out))[testVar]; v != "" {
		b.known = append(b.known, urlSecrets(v)...)
		return v, nil
	}
	return "", fmt.Errorf("scripts/testservers env printed no %s", testVar)
}

// parseExports reads lines of `export NAME='value'`.
func parseExports(s string) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "export ")
		if !ok {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		m[k] = strings.Trim(v, `'"`)
	}
	return m
}

// urlSecrets is a URL's password, raw and decoded.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	p, ok := u.User.Password()
	if !ok || p == "" {
		return nil
	}
	out := []string{p}
	if enc := url.QueryEscape(p); enc != p {
		out = append(out, enc)
	}
	return out
}

// withDB is a URL with its path replaced by /name.
func withDB(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Path, u.RawPath = "/"+name, ""
	if u.Scheme == "mongodb" || u.Scheme == "mongodb+srv" {
		q := u.Query()
		if q.Get("authSource") == "" && u.User != nil {
			q.Set("authSource", "admin")
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// ---------------------------------------------------------------- PostgreSQL

// pgServer is the PostgreSQL server a subcommand measures on: an admin
// connection, the databases it made (dropped at close), and the
// postmaster's pid when the server runs on this host.
type pgServer struct {
	b       *bench
	base    string
	u       *url.URL
	user    string
	pass    string
	host    string
	port    string
	sslmode string // from the URL; "" when it names none
	admin   *pgx.Conn
	pid     int
	created []string
}

func openPG(ctx context.Context, b *bench) (*pgServer, error) {
	base, err := b.serverURL(ctx, "DBARENA_BENCH_PG", "postgres", "DBARENA_TEST_POSTGRES")
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("the PostgreSQL server: want a postgres:// URL")
	}
	p := &pgServer{b: b, base: base, u: u, host: u.Hostname(), port: u.Port(), sslmode: u.Query().Get("sslmode")}
	if p.port == "" {
		p.port = "5432"
	}
	if u.User != nil {
		p.user = u.User.Username()
		p.pass, _ = u.User.Password()
	}
	if p.admin, err = pgx.Connect(ctx, base); err != nil {
		return nil, fmt.Errorf("connecting to %s:%s: %w", p.host, p.port, err)
	}
	b.onClose(p.close)
	// The postmaster: the checkpointer's parent, when /proc shows it.
	var ckpt int
	if err := p.admin.QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'").Scan(&ckpt); err == nil && isLoopback(p.host) {
		if pp, err := parentPID(b.proc, ckpt); err == nil {
			p.pid = pp
		}
	}
	if p.pid == 0 {
		b.logf("the server's process is not on this host (or /proc hides it): no server CPU")
	}
	return p, nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}

// parentPID reads the parent of pid from /proc/pid/stat.
func parentPID(proc fs.FS, pid int) (int, error) {
	b, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/stat")
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("bad stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, errors.New("bad stat")
	}
	return strconv.Atoi(f[1])
}

func (p *pgServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, db := range p.created {
		if err := p.dropDB(ctx, db); err != nil {
			p.b.logf("warning: could not drop database %s: %v", db, err)
		}
	}
	_ = p.admin.Close(ctx)
}

// url is the server's URL for database db, for dbarena.
func (p *pgServer) url(db string) string { return withDB(p.base, db) }

// libpqEnv is the environment of pgbench, sysbench, psql: the password
// and the URL's sslmode.
func (p *pgServer) libpqEnv() []string {
	env := []string{"PGPASSWORD=" + p.pass}
	if p.sslmode != "" {
		env = append(env, "PGSSLMODE="+p.sslmode)
	}
	return env
}

func (p *pgServer) exec(ctx context.Context, sql string) error {
	_, err := p.admin.Exec(ctx, sql)
	return err
}

func (p *pgServer) createDB(ctx context.Context, name string) error {
	if err := p.dropDB(ctx, name); err != nil {
		return err
	}
	p.created = append(p.created, name)
	return p.exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
}

func (p *pgServer) dropDB(ctx context.Context, name string) error {
	return p.exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

// in runs sql in database db and scans its one row into dest.
func (p *pgServer) in(ctx context.Context, db, sql string, dest ...any) error {
	c, err := pgx.Connect(ctx, p.url(db))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if len(dest) == 0 {
		_, err = c.Exec(ctx, sql)
		return err
	}
	return c.QueryRow(ctx, sql).Scan(dest...)
}

// settle gives loaded databases the same footing: fresh statistics,
// the visibility map set, dirty pages written.
func (p *pgServer) settle(ctx context.Context, dbs ...string) error {
	for _, db := range dbs {
		if err := p.in(ctx, db, "VACUUM ANALYZE"); err != nil {
			return fmt.Errorf("VACUUM ANALYZE in %s: %w", db, err)
		}
	}
	return p.exec(ctx, "CHECKPOINT")
}

// gone waits (up to 5 s) until no session serves database db, and then a
// moment for the postmaster to reap them: a backend that exits between
// two readings of the server's CPU would be counted in neither.
func (p *pgServer) gone(ctx context.Context, db string) func() {
	return func() {
		for range 50 {
			var n int
			if err := p.admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", db).Scan(&n); err != nil || n == 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// describe is the server's version and settings, for a report's header.
func (p *pgServer) describe(ctx context.Context) string {
	var version, settings string
	_ = p.admin.QueryRow(ctx, "SELECT version()").Scan(&version)
	_ = p.admin.QueryRow(ctx, `SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name) FROM pg_settings
		WHERE name IN ('shared_buffers','fsync','synchronous_commit','full_page_writes','wal_level','max_wal_size','max_connections','default_transaction_isolation')`).Scan(&settings)
	return fmt.Sprintf("server: %s at %s:%s; %s", version, p.host, p.port, settings)
}

// ---------------------------------------------------------------- MongoDB

// mongoServer is the MongoDB server: a client and mongod's pid when it
// runs on this host.
type mongoServer struct {
	base    string
	client  *mongo.Client
	pid     int
	version string
}

func openMongo(ctx context.Context, b *bench) (*mongoServer, error) {
	base, err := b.serverURL(ctx, "DBARENA_BENCH_MONGO", "mongo", "DBARENA_TEST_MONGO")
	if err != nil {
		return nil, err
	}
	c, err := mongo.Connect(mopts.Client().ApplyURI(base))
	if err != nil {
		return nil, err
	}
	m := &mongoServer{base: base, client: c}
	b.onClose(func() { _ = c.Disconnect(context.Background()) })
	var st struct {
		PID     int64  `bson:"pid"`
		Host    string `bson:"host"`
		Version string `bson:"version"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		return nil, fmt.Errorf("MongoDB serverStatus: %w", err)
	}
	m.version = st.Version
	u, _ := url.Parse(base)
	if u != nil && isLoopback(u.Hostname()) {
		if comm, err := fs.ReadFile(b.proc, strconv.Itoa(int(st.PID))+"/comm"); err == nil && strings.TrimSpace(string(comm)) == "mongod" {
			m.pid = int(st.PID)
		}
	}
	if m.pid == 0 {
		b.logf("mongod is not on this host (or /proc hides it): no server CPU from /proc")
	}
	return m, nil
}

func (m *mongoServer) url(db string) string { return withDB(m.base, db) }

func (m *mongoServer) hasDB(ctx context.Context, name string) (bool, error) {
	names, err := m.client.ListDatabaseNames(ctx, bson.D{{Key: "name", Value: name}})
	return len(names) > 0, err
}

// writeFile writes a report.
func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
