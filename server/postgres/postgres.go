// Package postgres defines the managed-server kinds of the PostgreSQL
// wire family and registers them with package server from its init:
// PostgreSQL (ServerKind: initdb and postgres from the machine's
// binaries) and PgBouncer in transaction mode in front of it
// (BouncerKind, bouncer.go). Its targets are postgres:// URLs, which
// engine/postgres opens; the two packages do not import each other.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"

	"github.com/dbarena/dbarena/server"
)

// ServerKind is the managed-server kind of PostgreSQL: a PostgreSQL
// server from the machine's binaries (/usr/lib/postgresql/<version>/bin,
// the newest found, or PATH; with a version asked for, also the
// project's cached builds: see installs), started by package server.
const ServerKind server.Kind = "postgres"

// init registers the managed-server kinds of the PostgreSQL wire family:
// PostgreSQL itself and PgBouncer in front of it.
func init() {
	server.RegisterKind(postgresKind)
	server.RegisterKind(pgbouncerKind)
}

// postgresKind is PostgreSQL: initdb and postgres, from the newest
// /usr/lib/postgresql/<version>/bin (or --bin-dir, or PATH); knobs in
// dbarena.conf; SIGINT for a fast shutdown; as root it runs as postgres.
var postgresKind = &server.KindDef{
	Kind:    ServerKind,
	Title:   "PostgreSQL",
	Aliases: []string{"postgresql", "pg"},
	Order:   10,
	Reserved: map[string]string{
		"port": "--port", "listen_addresses": "", "unix_socket_directories": "", "data_directory": "",
		"config_file": "", "hba_file": "", "ident_file": "", "external_pid_file": "", "logging_collector": "",
	},
	RootUser:   "postgres",
	StopSignal: syscall.SIGINT,
	Find: func(spec server.Spec) (server.Binaries, error) {
		return findPostgres(spec.BinDir, spec.Getenv("PATH"))
	},
	Installs:    installs,
	InstallHelp: installHelp,
	Start:       startPostgres,
	TargetURL:   func(u *url.URL) { u.Scheme, u.RawQuery = "postgres", "sslmode=disable" },
	Describe: func(spec server.Spec) (string, []string, error) {
		b, err := findPostgres(spec.BinDir, spec.Getenv("PATH"))
		if err != nil {
			return "", nil, err
		}
		return b.Path["postgres"], []string{"--describe-config"}, nil
	},
	Parse:       parseDescribeConfig,
	PartialList: true,
	// The postmaster writes postmaster.pid however it was started
	// (pg_ctl, by hand): its PID first, its port on the fourth line.
	PIDFile: func(s *server.Server) string {
		if s.DataDir() == "" {
			return ""
		}
		return filepath.Join(s.DataDir(), "postmaster.pid")
	},
	PIDFilePort: 4,
}

// parseDescribeConfig reads the names from `postgres --describe-config`:
// name<TAB>context<TAB>group<TAB>type… per line.
func parseDescribeConfig(out []byte) []string {
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if name, _, ok := strings.Cut(line, "\t"); ok {
			names = append(names, name)
		}
	}
	return names
}

// findPostgres finds initdb and postgres: in binDir when given, else in
// the newest /usr/lib/postgresql/<version>/bin that has both, else on
// PATH.
func findPostgres(binDir, pathEnv string) (server.Binaries, error) {
	progs := []string{"initdb", "postgres"}
	has := func(dir string) map[string]string {
		m := map[string]string{}
		for _, p := range progs {
			if c := filepath.Join(dir, p); server.IsExecutable(c) {
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
			return server.Binaries{Dir: binDir, Path: m}, nil
		}
		return server.Binaries{}, fmt.Errorf("%w: PostgreSQL: no initdb and postgres in %s; install the Debian package postgresql-15 (apt-get install postgresql-15), or name the directory of its programs (--bin-dir)", server.ErrNotInstalled, binDir)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	for _, d := range dirs {
		if m := has(d); m != nil {
			return server.Binaries{Dir: d, Path: m}, nil
		}
	}
	if p, err := server.LookPath("initdb", pathEnv); err == nil {
		if d := filepath.Dir(p); has(d) != nil {
			return server.Binaries{Dir: d, Path: has(d)}, nil
		}
	}
	return server.Binaries{}, fmt.Errorf("%w: PostgreSQL: no initdb and postgres in /usr/lib/postgresql/*/bin or on PATH; install the Debian package postgresql-15 (apt-get install postgresql-15), or name the directory of its programs (--bin-dir)", server.ErrNotInstalled)
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
// SCRAM for every connection, no fsync while initialising; data page
// checksums as the knob data_checksums says, see initdbKnobs), writes the
// knobs into dbarena.conf (included at the end of postgresql.conf: they
// win), starts postgres on 127.0.0.1 only (no Unix socket), creates the
// database bench and reads the knobs back.
func startPostgres(ctx context.Context, st *server.Starting) error {
	spec := st.Spec()
	run := st.RunDir()
	dataDir := filepath.Join(run, "data")
	st.SetDataDir(dataDir)
	pwfile := filepath.Join(run, "pwfile")
	if err := st.WriteFile(pwfile, st.Password().Reveal()+"\n"); err != nil {
		return err
	}
	knobs, initArgs, err := initdbKnobs(ctx, st.Program("initdb"), spec.Knobs)
	if err != nil {
		return err
	}
	args := append([]string{"-D", dataDir, "-U", server.User, "--pwfile=" + pwfile,
		"--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"}, initArgs...)
	err = st.Setup(ctx, st.Program("initdb"), args...)
	os.Remove(pwfile)
	if err != nil {
		return err
	}

	var conf strings.Builder
	conf.WriteString("# Written by dbarena for managed server " + st.Name() + ".\n")
	conf.WriteString("listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\n")
	if len(knobs) > 0 {
		conf.WriteString("# The settings asked for:\n")
	}
	for _, k := range knobs {
		fmt.Fprintf(&conf, "%s = %s\n", k.Name, pgConf(k.Value))
	}
	if err := st.WriteFile(filepath.Join(dataDir, "dbarena.conf"), conf.String()); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dataDir, "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
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

	command := func(port int) (string, []string, error) {
		return st.Program("postgres"), []string{"-D", dataDir, "-p", strconv.Itoa(port)}, nil
	}
	ready := func(ctx context.Context) error {
		c, err := pgConnect(ctx, st.Port(), "postgres", st.Password().Reveal(), false)
		if err == nil {
			c.Close(ctx)
		}
		return err
	}
	if err := st.Run(ctx, command, ready); err != nil {
		return err
	}

	c, err := pgConnect(ctx, st.Port(), "postgres", st.Password().Reveal(), false)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "CREATE DATABASE "+server.Database); err != nil {
		return fmt.Errorf("CREATE DATABASE %s: %w", server.Database, err)
	}
	var version string
	if err := c.QueryRow(ctx, "SELECT 'PostgreSQL ' || current_setting('server_version')").Scan(&version); err != nil {
		return err
	}
	st.SetVersion(version)
	return readBackPostgres(ctx, st, c, spec.Knobs)
}

// initdbKnobs splits off the knobs that initdb sets, not postgresql.conf:
// data_checksums=on|off (on is initdb's default from PostgreSQL 18 on,
// off before), as --data-checksums or --no-data-checksums where initdb
// has it (18 on; before, off needs no flag). It returns the other knobs
// and initdb's arguments; SHOW reads data_checksums back like the rest.
func initdbKnobs(ctx context.Context, initdb string, knobs []server.Knob) (rest []server.Knob, args []string, err error) {
	for _, k := range knobs {
		if !strings.EqualFold(k.Name, "data_checksums") {
			rest = append(rest, k)
			continue
		}
		switch strings.ToLower(k.Value) {
		case "on", "true", "yes", "1":
			args = append(args, "--data-checksums")
		case "off", "false", "no", "0":
			help, herr := exec.CommandContext(ctx, initdb, "--help").Output()
			if herr != nil {
				return nil, nil, fmt.Errorf("%s --help: %w", initdb, herr)
			}
			if strings.Contains(string(help), "--no-data-checksums") {
				args = append(args, "--no-data-checksums")
			}
		default:
			return nil, nil, &server.KnobError{Kind: ServerKind, Knob: k, Problem: "want on or off (initdb's --data-checksums)"}
		}
	}
	return rest, args, nil
}

// readBackPostgres compares each knob with pg_settings and records the
// values as SHOW prints them.
func readBackPostgres(ctx context.Context, st *server.Starting, c *pgx.Conn, knobs []server.Knob) error {
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
	var errs []error
	for _, k := range knobs {
		p, ok := got[strings.ToLower(k.Name)]
		switch {
		case !ok && strings.Contains(k.Name, "."):
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: "unknown setting: not in pg_settings (an extension's setting needs the extension in shared_preload_libraries)"})
		case !ok:
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: "unknown setting: not in pg_settings"})
		case !pgMatches(k.Value, p):
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: fmt.Sprintf("the server reports %s = %s", p.name, p.shown)})
		default:
			st.SetSetting(k.Name, p.shown)
		}
	}
	return errors.Join(errs...)
}

// pgConnect connects to a PostgreSQL (or PgBouncer) on 127.0.0.1 as
// bench. simple selects the simple protocol, which PgBouncer's admin
// console needs.
func pgConnect(ctx context.Context, port int, db, password string, simple bool) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable connect_timeout=5", port, server.User, db))
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
