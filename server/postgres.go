package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
)

// findPostgres finds initdb and postgres: in binDir when given, else in
// the newest /usr/lib/postgresql/<version>/bin that has both, else on
// PATH.
func findPostgres(binDir, pathEnv string) (string, map[string]string, error) {
	progs := []string{"initdb", "postgres"}
	has := func(dir string) map[string]string {
		m := map[string]string{}
		for _, p := range progs {
			if c := filepath.Join(dir, p); isExecutable(c) {
				m[p] = c
			}
		}
		if len(m) < len(progs) {
			return nil
		}
		return m
	}
	if binDir != "" {
		if m := has(binDir); m != nil {
			return binDir, m, nil
		}
		return "", nil, fmt.Errorf("%w: PostgreSQL: no initdb and postgres in %s; install the Debian package postgresql-15 (apt-get install postgresql-15), or name the directory of its programs (--bin-dir)", ErrNotInstalled, binDir)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	for _, d := range dirs {
		if m := has(d); m != nil {
			return d, m, nil
		}
	}
	if p, err := lookPath("initdb", pathEnv); err == nil {
		if d := filepath.Dir(p); has(d) != nil {
			return d, has(d), nil
		}
	}
	return "", nil, fmt.Errorf("%w: PostgreSQL: no initdb and postgres in /usr/lib/postgresql/*/bin or on PATH; install the Debian package postgresql-15 (apt-get install postgresql-15), or name the directory of its programs (--bin-dir)", ErrNotInstalled)
}

// pgVersion is the version in /usr/lib/postgresql/<version>/bin ("9.6"
// sorts below "15").
func pgVersion(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

// pgConf quotes a value for postgresql.conf, whose strings take
// backslash escapes.
func pgConf(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(v) + "'"
}

// startPostgres makes a cluster with initdb (user bench, its password,
// SCRAM for every connection, no fsync while initialising), writes the
// knobs into dbarena.conf (included at the end of postgresql.conf: they
// win), starts postgres on 127.0.0.1 only (no Unix socket), creates the
// database bench and reads the knobs back.
func startPostgres(ctx context.Context, s *Server, spec Spec, bins binaries, a account) error {
	if bins.path["postgres"] == "" { // a PgBouncer's own backend
		bins.dir, bins.path = bins.pgDir, bins.pg
		s.rec.BinDir = bins.dir
	}
	run := s.rec.RunDir
	s.rec.DataDir = filepath.Join(run, "data")
	env := childEnv(bins.dir)
	setupLog := filepath.Join(s.dir, setupLogFile)
	pwfile := filepath.Join(run, "pwfile")
	if err := writeOwned(a, pwfile, s.password.Reveal()+"\n"); err != nil {
		return err
	}
	err := runSetup(ctx, a, run, setupLog, env, bins.path["initdb"], "-D", s.rec.DataDir, "-U", dbUser, "--pwfile="+pwfile,
		"--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C")
	os.Remove(pwfile)
	if err != nil {
		return s.setupError(spec, setupLog, err)
	}

	var conf strings.Builder
	conf.WriteString("# Written by dbarena for managed server " + s.rec.Name + ".\n")
	conf.WriteString("listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\n")
	if len(spec.Knobs) > 0 {
		conf.WriteString("# The settings asked for:\n")
	}
	for _, k := range spec.Knobs {
		fmt.Fprintf(&conf, "%s = %s\n", k.Name, pgConf(k.Value))
	}
	if err := writeOwned(a, filepath.Join(s.rec.DataDir, "dbarena.conf"), conf.String()); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.rec.DataDir, "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString("\n# dbarena's settings come last and win.\ninclude 'dbarena.conf'\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}

	launch := func(port int) (*process, error) {
		return spawn(a, run, s.LogFile(), env, bins.path["postgres"], "-D", s.rec.DataDir, "-p", strconv.Itoa(port))
	}
	ready := func(ctx context.Context) error {
		c, err := pgConnect(ctx, s.rec.Port, "postgres", s.password.Reveal(), false)
		if err == nil {
			c.Close(ctx)
		}
		return err
	}
	if err := s.run(ctx, spec, launch, ready); err != nil {
		return err
	}

	c, err := pgConnect(ctx, s.rec.Port, "postgres", s.password.Reveal(), false)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "CREATE DATABASE "+dbName); err != nil {
		return fmt.Errorf("CREATE DATABASE %s: %w", dbName, err)
	}
	if err := c.QueryRow(ctx, "SELECT 'PostgreSQL ' || current_setting('server_version')").Scan(&s.rec.Version); err != nil {
		return err
	}
	return s.readBackPostgres(ctx, c, spec.Knobs)
}

// readBackPostgres compares each knob with pg_settings and records the
// values as SHOW prints them.
func (s *Server) readBackPostgres(ctx context.Context, c *pgx.Conn, knobs []Knob) error {
	if len(knobs) == 0 {
		return nil
	}
	names := make([]string, len(knobs))
	for i, k := range knobs {
		names[i] = strings.ToLower(k.Name)
	}
	rows, err := c.Query(ctx, `SELECT lower(name), setting, coalesce(unit, ''), vartype, coalesce(min_val, ''), current_setting(name)
		FROM pg_settings WHERE lower(name) = ANY($1)`, names)
	if err != nil {
		return fmt.Errorf("reading pg_settings: %w", err)
	}
	got := map[string]pgSetting{}
	for rows.Next() {
		var p pgSetting
		if err := rows.Scan(&p.name, &p.setting, &p.unit, &p.vartype, &p.minVal, &p.shown); err != nil {
			rows.Close()
			return err
		}
		got[p.name] = p
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading pg_settings: %w", err)
	}
	s.rec.Settings = map[string]string{}
	var errs []error
	for _, k := range knobs {
		p, ok := got[strings.ToLower(k.Name)]
		switch {
		case !ok && strings.Contains(k.Name, "."):
			errs = append(errs, &KnobError{Kind: Postgres, Knob: k, Problem: "unknown setting: not in pg_settings (an extension's setting needs the extension in shared_preload_libraries)"})
		case !ok:
			errs = append(errs, &KnobError{Kind: Postgres, Knob: k, Problem: "unknown setting: not in pg_settings"})
		case !pgMatches(k.Value, p):
			errs = append(errs, &KnobError{Kind: Postgres, Knob: k, Problem: fmt.Sprintf("the server reports %s = %s", p.name, p.shown)})
		default:
			s.rec.Settings[k.Name] = p.shown
		}
	}
	return errors.Join(errs...)
}

// pgConnect connects to a PostgreSQL (or PgBouncer) on 127.0.0.1 as
// bench. simple selects the simple protocol, which PgBouncer's admin
// console needs.
func pgConnect(ctx context.Context, port int, db, password string, simple bool) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable connect_timeout=5", port, dbUser, db))
	if err != nil {
		return nil, err
	}
	cfg.Password = password
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	if simple {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// postgresKind is PostgreSQL: initdb and postgres, from the newest
// /usr/lib/postgresql/<version>/bin (or --bin-dir, or PATH); knobs in
// dbarena.conf; SIGINT for a fast shutdown.
var postgresKind = &kindDef{
	kind:    Postgres,
	title:   "PostgreSQL",
	aliases: []string{"postgresql", "pg"},
	reserved: map[string]string{
		"port": "--port", "listen_addresses": "", "unix_socket_directories": "", "data_directory": "",
		"config_file": "", "hba_file": "", "ident_file": "", "external_pid_file": "", "logging_collector": "",
	},
	stopSignal: syscall.SIGINT,
	find: func(spec Spec) (binaries, error) {
		var b binaries
		var err error
		b.dir, b.path, err = findPostgres(spec.BinDir, spec.Getenv("PATH"))
		return b, err
	},
	start:     startPostgres,
	targetURL: func(u *url.URL) { u.RawQuery = "sslmode=disable" },
	describe: func(spec Spec) (string, []string, error) {
		_, path, err := findPostgres(spec.BinDir, spec.Getenv("PATH"))
		if err != nil {
			return "", nil, err
		}
		return path["postgres"], []string{"--describe-config"}, nil
	},
	// name<TAB>context<TAB>group<TAB>type…
	parse: func(d *kindDef, sc *bufio.Scanner, known map[string]bool) {
		for sc.Scan() {
			if name, _, ok := strings.Cut(sc.Text(), "\t"); ok {
				known[d.normal(name)] = true
			}
		}
	},
	partialList: true,
}
