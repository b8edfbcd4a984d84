package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxPool bounds PgBouncer's default_pool_size: enough server
// connections for 300 clients.
const maxPool = 300

// startPgBouncer starts, unless Spec.Backend names one, a PostgreSQL of
// its own (in backend/, with the knobs that are not PgBouncer's), then
// PgBouncer in front of it: transaction pooling, SCRAM with the backend's
// own secret for bench in the auth file, ignore_startup_parameters =
// extra_float_digits (pgx sends it), max_client_conn 1000 and a pool as
// large as the backend allows (its max_connections less the reserved
// ones and a margin, at most 300). The pgbouncer.* knobs come last and
// are read back with SHOW CONFIG on the admin console.
func startPgBouncer(ctx context.Context, s *Server, spec Spec, bins binaries, a account) error {
	var backendKnobs, own []Knob
	for _, k := range spec.Knobs {
		if n, ok := strings.CutPrefix(k.Name, BouncerPrefix); ok {
			own = append(own, Knob{Name: n, Value: k.Value})
		} else {
			backendKnobs = append(backendKnobs, k)
		}
	}
	if s.backend == nil {
		dir := filepath.Join(s.dir, backendDir)
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
		s.rec.OwnBackend = true
		if err := s.save(); err != nil {
			return err
		}
		bspec := Spec{Kind: Postgres, Knobs: backendKnobs, Home: spec.Home, Timeout: spec.Timeout, Getenv: spec.Getenv}
		b, err := start(ctx, bspec, s.rec.Name+"-backend", dir, bins, nil)
		if err != nil {
			return err
		}
		s.backend = b
	}
	// Clients log in with the backend's password: PgBouncer passes SCRAM
	// through with the backend's secret.
	s.password = s.backend.password
	if err := os.WriteFile(s.PasswordFile(), []byte(s.password.Reveal()+"\n"), 0o600); err != nil {
		return err
	}
	secret, pool, err := bouncerAuth(ctx, s.backend)
	if err != nil {
		return err
	}
	run := s.rec.RunDir
	s.rec.DataDir = run
	users := filepath.Join(run, "users.txt")
	if err := writeOwned(a, users, fmt.Sprintf("%q %q\n", dbUser, secret)); err != nil {
		return err
	}
	ini := filepath.Join(run, "pgbouncer.ini")
	launch := func(port int) (*process, error) {
		settings := []Knob{
			{"listen_addr", "127.0.0.1"},
			{"listen_port", strconv.Itoa(port)},
			{"unix_socket_dir", ""},
			{"auth_type", "scram-sha-256"},
			{"auth_file", users},
			{"admin_users", dbUser},
			{"pool_mode", "transaction"},
			{"ignore_startup_parameters", "extra_float_digits"},
			{"max_client_conn", "1000"},
			{"default_pool_size", strconv.Itoa(pool)},
		}
		var b strings.Builder
		b.WriteString("; Written by dbarena for managed server " + s.rec.Name + ".\n[databases]\n")
		bport := s.backend.Port()
		fmt.Fprintf(&b, "%s = host=127.0.0.1 port=%d dbname=%s\n* = host=127.0.0.1 port=%d\n\n[pgbouncer]\n", dbName, bport, dbName, bport)
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
		if err := writeOwned(a, ini, b.String()); err != nil {
			return nil, err
		}
		return spawn(a, run, s.LogFile(), childEnv(bins.dir), bins.path["pgbouncer"], ini)
	}
	ready := func(ctx context.Context) error {
		c, err := pgConnect(ctx, s.rec.Port, dbName, s.password.Reveal(), false)
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		_, err = c.Exec(ctx, "SELECT 1")
		return err
	}
	if err := s.run(ctx, spec, launch, ready); err != nil {
		return err
	}
	s.rec.Version = "PgBouncer, in front of " + s.backend.Version()
	return s.readBackPgBouncer(ctx, spec.Knobs, own)
}

// bouncerAuth reads bench's SCRAM secret from the backend and works out
// the pool size it allows.
func bouncerAuth(ctx context.Context, backend *Server) (secret string, pool int, err error) {
	c, err := pgConnect(ctx, backend.Port(), dbName, backend.password.Reveal(), false)
	if err != nil {
		return "", 0, fmt.Errorf("pgbouncer backend %s: %w", backend.Name(), err)
	}
	defer c.Close(context.Background())
	var maxConn, reservedConn int
	err = c.QueryRow(ctx, `SELECT rolpassword, current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int
		FROM pg_authid WHERE rolname = current_user`).Scan(&secret, &maxConn, &reservedConn)
	if err != nil {
		return "", 0, fmt.Errorf("pgbouncer backend %s: reading the SCRAM secret of %s: %w", backend.Name(), dbUser, err)
	}
	if !strings.HasPrefix(secret, "SCRAM-SHA-256$") {
		return "", 0, fmt.Errorf("pgbouncer backend %s: the password of %s is not stored as SCRAM-SHA-256", backend.Name(), dbUser)
	}
	pool = min(max(maxConn-reservedConn-3, 1), maxPool)
	return secret, pool, nil
}

// readBackPgBouncer compares PgBouncer's own knobs with SHOW CONFIG on its
// admin console.
func (s *Server) readBackPgBouncer(ctx context.Context, knobs, own []Knob) error {
	s.rec.Settings = map[string]string{}
	if s.rec.OwnBackend { // its knobs were asked of this server
		for k, v := range s.backend.rec.Settings {
			s.rec.Settings[k] = v
		}
	}
	if len(own) == 0 {
		return nil
	}
	c, err := pgConnect(ctx, s.rec.Port, "pgbouncer", s.password.Reveal(), true)
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
			errs = append(errs, &KnobError{Kind: PgBouncer, Knob: k, Problem: "unknown setting: not in SHOW CONFIG"})
		case !looseMatches(k.Value, got):
			errs = append(errs, &KnobError{Kind: PgBouncer, Knob: k, Problem: fmt.Sprintf("PgBouncer reports %s = %s", n, got)})
		default:
			s.rec.Settings[k.Name] = got
		}
	}
	return errors.Join(errs...)
}

func hasKnob(knobs []Knob, name string) bool {
	for _, k := range knobs {
		if strings.EqualFold(k.Name, name) {
			return true
		}
	}
	return false
}

// pgbouncerKind is PgBouncer in front of PostgreSQL (a named one, or one
// it starts itself): its own settings are the knobs named pgbouncer.*;
// SIGTERM for a clean shutdown. Its targets use pgx's exec mode, which
// works behind transaction pooling.
var pgbouncerKind = &kindDef{
	kind:    PgBouncer,
	title:   "PgBouncer",
	aliases: []string{"bouncer"},
	reserved: map[string]string{
		"listen_port": "--port", "listen_addr": "", "unix_socket_dir": "", "auth_type": "", "auth_file": "",
		"auth_user": "", "auth_query": "", "logfile": "", "pidfile": "", "user": "", "admin_users": "",
	},
	stopSignal: syscall.SIGTERM,
	backend:    Postgres,
	ownPrefix:  BouncerPrefix,
	find: func(spec Spec) (binaries, error) {
		var b binaries
		var err error
		b.dir, b.path, err = findPrograms(spec.BinDir, spec.Getenv("PATH"), "PgBouncer", "pgbouncer", []string{"pgbouncer"})
		if err == nil && spec.Backend == "" {
			b.pgDir, b.pg, err = findPostgres("", spec.Getenv("PATH"))
		}
		return b, err
	},
	start:     startPgBouncer,
	targetURL: func(u *url.URL) { u.RawQuery = "sslmode=disable&default_query_exec_mode=exec" },
}
