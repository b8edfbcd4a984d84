package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dbarena/dbarena/server"
)

// BouncerKind is the managed-server kind of PgBouncer: a PgBouncer in
// transaction mode in front of a managed PostgreSQL, a named one
// (server.Spec.Backend) or one of its own.
const BouncerKind server.Kind = "pgbouncer"

// BouncerPrefix marks a PgBouncer server's own settings among its knobs
// (pgbouncer.default_pool_size=50); its other knobs go to the PostgreSQL
// server it starts behind itself.
const BouncerPrefix = "pgbouncer."

// maxPool bounds PgBouncer's default_pool_size: enough server
// connections for 300 clients.
const maxPool = 300

// pgbouncerKind is PgBouncer in front of PostgreSQL (a named one, or one
// the core starts for it): its own settings are the knobs named
// pgbouncer.*; SIGTERM for a clean shutdown; as root it runs as
// postgres. Its targets use pgx's exec mode, which works behind
// transaction pooling.
var pgbouncerKind = &server.KindDef{
	Kind:    BouncerKind,
	Title:   "PgBouncer",
	Aliases: []string{"bouncer"},
	Order:   30,
	Reserved: map[string]string{
		"listen_port": "--port", "listen_addr": "", "unix_socket_dir": "", "auth_type": "", "auth_file": "",
		"auth_user": "", "auth_query": "", "logfile": "", "pidfile": "", "user": "", "admin_users": "",
	},
	RootUser:   "postgres",
	StopSignal: syscall.SIGTERM,
	Backend:    ServerKind,
	OwnPrefix:  BouncerPrefix,
	Find: func(spec server.Spec) (server.Binaries, error) {
		return server.FindPrograms(spec.BinDir, spec.Getenv("PATH"), "PgBouncer", "pgbouncer", []string{"pgbouncer"})
	},
	Start: startPgBouncer,
	PIDFile: func(s *server.Server) string {
		if s.RunDir() == "" {
			return ""
		}
		return bouncerPIDFile(s.RunDir())
	},
	TargetURL: func(u *url.URL) { u.Scheme, u.RawQuery = "postgres", "sslmode=disable&default_query_exec_mode=exec" },
}

// bouncerPIDFile is PgBouncer's PID file in its run directory.
func bouncerPIDFile(runDir string) string { return filepath.Join(runDir, "pgbouncer.pid") }

// startPgBouncer starts PgBouncer in front of its backend: transaction
// pooling, SCRAM with the backend's own secret for bench in the auth
// file, ignore_startup_parameters = extra_float_digits (pgx sends it),
// max_client_conn 1000 and a pool as large as the backend allows (its
// max_connections less the reserved ones and a margin, at most 300). The
// pgbouncer.* knobs come last and are read back with SHOW CONFIG on the
// admin console.
func startPgBouncer(ctx context.Context, st *server.Starting) error {
	spec := st.Spec()
	var own []server.Knob
	for _, k := range spec.Knobs {
		if n, ok := strings.CutPrefix(k.Name, BouncerPrefix); ok {
			own = append(own, server.Knob{Name: n, Value: k.Value})
		}
	}
	backend := st.Backend()
	// Clients log in with the backend's password: PgBouncer passes SCRAM
	// through with the backend's secret.
	if err := st.SetPassword(backend.Target().Password); err != nil {
		return err
	}
	secret, pool, err := bouncerAuth(ctx, backend)
	if err != nil {
		return err
	}
	run := st.RunDir()
	st.SetDataDir(run)
	users := filepath.Join(run, "users.txt")
	if err := st.WriteFile(users, fmt.Sprintf("%q %q\n", server.User, secret)); err != nil {
		return err
	}
	ini := filepath.Join(run, "pgbouncer.ini")
	command := func(port int) (string, []string, error) {
		settings := []server.Knob{
			{Name: "listen_addr", Value: "127.0.0.1"},
			{Name: "listen_port", Value: strconv.Itoa(port)},
			{Name: "unix_socket_dir", Value: ""},
			{Name: "auth_type", Value: "scram-sha-256"},
			{Name: "auth_file", Value: users},
			{Name: "admin_users", Value: server.User},
			{Name: "pool_mode", Value: "transaction"},
			{Name: "ignore_startup_parameters", Value: "extra_float_digits"},
			{Name: "max_client_conn", Value: "1000"},
			{Name: "default_pool_size", Value: strconv.Itoa(pool)},
			{Name: "pidfile", Value: bouncerPIDFile(run)},
		}
		var b strings.Builder
		b.WriteString("; Written by dbarena for managed server " + st.Name() + ".\n[databases]\n")
		bport := backend.Port()
		fmt.Fprintf(&b, "%s = host=127.0.0.1 port=%d dbname=%s\n* = host=127.0.0.1 port=%d\n\n[pgbouncer]\n", server.Database, bport, server.Database, bport)
		for _, k := range settings {
			if !hasKnob(own, k.Name) {
				fmt.Fprintf(&b, "%s = %s\n", k.Name, k.Value)
			}
		}
		if len(own) > 0 {
			b.WriteString("; The settings asked for:\n")
		}
		for _, k := range own {
			fmt.Fprintf(&b, "%s = %s\n", k.Name, k.Value)
		}
		if err := st.WriteFile(ini, b.String()); err != nil {
			return "", nil, err
		}
		return st.Program("pgbouncer"), []string{ini}, nil
	}
	ready := func(ctx context.Context) error {
		c, err := pgConnect(ctx, st.Port(), server.Database, st.Password().Reveal(), false)
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		_, err = c.Exec(ctx, "SELECT 1")
		return err
	}
	if err := st.Run(ctx, command, ready); err != nil {
		return err
	}
	st.SetVersion("PgBouncer, in front of " + backend.Version())
	return readBackPgBouncer(ctx, st, spec.Knobs, own)
}

// bouncerAuth reads bench's SCRAM secret from the backend and works out
// the pool size it allows.
func bouncerAuth(ctx context.Context, backend *server.Server) (secret string, pool int, err error) {
	c, err := pgConnect(ctx, backend.Port(), server.Database, backend.Target().Password.Reveal(), false)
	if err != nil {
		return "", 0, fmt.Errorf("pgbouncer backend %s: %w", backend.Name(), err)
	}
	defer c.Close(context.Background())
	var maxConn, reservedConn int
	err = c.QueryRow(ctx, `SELECT rolpassword, current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int
		FROM pg_authid WHERE rolname = current_user`).Scan(&secret, &maxConn, &reservedConn)
	if err != nil {
		return "", 0, fmt.Errorf("pgbouncer backend %s: reading the SCRAM secret of %s: %w", backend.Name(), server.User, err)
	}
	if !strings.HasPrefix(secret, "SCRAM-SHA-256$") {
		return "", 0, fmt.Errorf("pgbouncer backend %s: the password of %s is not stored as SCRAM-SHA-256", backend.Name(), server.User)
	}
	pool = min(max(maxConn-reservedConn-3, 1), maxPool)
	return secret, pool, nil
}

// readBackPgBouncer compares PgBouncer's own knobs with SHOW CONFIG on its
// admin console. (The core adds the values of its own backend's knobs.)
func readBackPgBouncer(ctx context.Context, st *server.Starting, knobs, own []server.Knob) error {
	if len(own) == 0 {
		return nil
	}
	c, err := pgConnect(ctx, st.Port(), "pgbouncer", st.Password().Reveal(), true)
	if err != nil {
		return fmt.Errorf("pgbouncer admin console: %w", err)
	}
	defer c.Close(context.Background())
	rows, err := c.Query(ctx, "SHOW CONFIG")
	if err != nil {
		return fmt.Errorf("pgbouncer SHOW CONFIG: %w", err)
	}
	config := map[string]string{}
	for rows.Next() {
		v, err := rows.Values()
		if err != nil || len(v) < 2 {
			rows.Close()
			return fmt.Errorf("pgbouncer SHOW CONFIG: %v", err)
		}
		config[strings.ToLower(fmt.Sprint(v[0]))] = fmt.Sprint(v[1])
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgbouncer SHOW CONFIG: %w", err)
	}
	var errs []error
	for _, k := range knobs {
		n, ok := strings.CutPrefix(k.Name, BouncerPrefix)
		if !ok {
			continue
		}
		got, ok := config[strings.ToLower(n)]
		switch {
		case !ok:
			errs = append(errs, &server.KnobError{Kind: BouncerKind, Knob: k, Problem: "unknown setting: not in SHOW CONFIG"})
		case !server.LooseMatches(k.Value, got):
			errs = append(errs, &server.KnobError{Kind: BouncerKind, Knob: k, Problem: fmt.Sprintf("PgBouncer reports %s = %s", n, got)})
		default:
			st.SetSetting(k.Name, got)
		}
	}
	return errors.Join(errs...)
}

func hasKnob(knobs []server.Knob, name string) bool {
	for _, k := range knobs {
		if strings.EqualFold(k.Name, name) {
			return true
		}
	}
	return false
}
