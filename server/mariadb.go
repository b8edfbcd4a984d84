package server

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// startMariaDB writes my.cnf (dbarena's lines, then the knobs, in
// [mariadbd]), makes the data directory with mariadb-install-db from the
// same file (settings fixed at creation, like innodb_page_size, apply),
// starts mariadbd with --defaults-file (nothing from /etc/mysql) on
// 127.0.0.1, creates user bench (all privileges) and database bench from
// an init file, and reads the knobs back. As root it runs as root
// (--user=root); otherwise as the caller.
func startMariaDB(ctx context.Context, s *Server, spec Spec, bins binaries, a account) error {
	run := s.rec.RunDir
	s.rec.DataDir = filepath.Join(run, "data")
	env := childEnv(bins.dir)
	cnf := filepath.Join(run, "my.cnf")
	var b strings.Builder
	b.WriteString("# Written by dbarena for managed server " + s.rec.Name + ".\n[mariadbd]\n")
	fmt.Fprintf(&b, "datadir = %s\nsocket = %s\npid-file = %s\nbind-address = 127.0.0.1\nskip-name-resolve\n",
		s.rec.DataDir, filepath.Join(run, "mariadbd.sock"), filepath.Join(run, "mariadbd.pid"))
	if a.uid == 0 {
		b.WriteString("user = root\n")
	}
	if len(spec.Knobs) > 0 {
		b.WriteString("# The settings asked for:\n")
	}
	for _, k := range spec.Knobs {
		fmt.Fprintf(&b, "%s = %s\n", k.Name, k.Value)
	}
	if err := writeOwned(a, cnf, b.String()); err != nil {
		return err
	}
	setupLog := filepath.Join(s.dir, setupLogFile)
	if err := runSetup(ctx, a, run, setupLog, env, bins.path["mariadb-install-db"], "--defaults-file="+cnf,
		"--auth-root-authentication-method=normal", "--skip-test-db"); err != nil {
		return s.setupError(spec, setupLog, err)
	}

	// The init file runs before the server takes connections: root's
	// TCP accounts without a password never meet the network.
	pw := s.password.Reveal()
	initFile := filepath.Join(run, "init.sql")
	init := "DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';\n" +
		"FLUSH PRIVILEGES;\n" +
		"ALTER USER 'root'@'localhost' IDENTIFIED BY '" + pw + "';\n" +
		"CREATE DATABASE " + dbName + ";\n" +
		"CREATE USER '" + dbUser + "'@'%' IDENTIFIED BY '" + pw + "';\n" +
		"GRANT ALL PRIVILEGES ON *.* TO '" + dbUser + "'@'%' WITH GRANT OPTION;\n"
	if err := writeOwned(a, initFile, init); err != nil {
		return err
	}
	defer os.Remove(initFile)

	launch := func(port int) (*process, error) {
		return spawn(a, run, s.LogFile(), env, bins.path["mariadbd"], "--defaults-file="+cnf, "--port="+strconv.Itoa(port), "--init-file="+initFile)
	}
	var db *sql.DB
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	ready := func(ctx context.Context) error {
		if db == nil {
			db = mysqlDB(s.rec.Port, pw)
		}
		err := db.PingContext(ctx)
		if err != nil {
			db.Close()
			db = nil
		}
		return err
	}
	if err := s.run(ctx, spec, launch, ready); err != nil {
		return err
	}
	os.Remove(initFile)
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.rec.Version); err != nil {
		return err
	}
	return s.readBackMariaDB(ctx, db, spec.Knobs)
}

// readBackMariaDB compares each knob with SHOW GLOBAL VARIABLES ('-' and
// '_' alike, a loose- prefix dropped).
func (s *Server) readBackMariaDB(ctx context.Context, db *sql.DB, knobs []Knob) error {
	if len(knobs) == 0 {
		return nil
	}
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL VARIABLES")
	if err != nil {
		return fmt.Errorf("SHOW GLOBAL VARIABLES: %w", err)
	}
	vars := map[string]string{}
	for rows.Next() {
		var name, value sql.NullString
		if err := rows.Scan(&name, &value); err != nil {
			rows.Close()
			return err
		}
		vars[strings.ToLower(name.String)] = value.String
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("SHOW GLOBAL VARIABLES: %w", err)
	}
	s.rec.Settings = map[string]string{}
	var errs []error
	for _, k := range knobs {
		name := strings.ReplaceAll(strings.ToLower(k.Name), "-", "_")
		name = strings.TrimPrefix(name, "loose_")
		got, ok := vars[name]
		switch {
		case !ok:
			errs = append(errs, &KnobError{Kind: MariaDB, Knob: k, Problem: "unknown setting: not among SHOW GLOBAL VARIABLES"})
		case !looseMatches(k.Value, got):
			errs = append(errs, &KnobError{Kind: MariaDB, Knob: k, Problem: fmt.Sprintf("the server reports %s = %s", name, got)})
		default:
			s.rec.Settings[k.Name] = got
		}
	}
	return errors.Join(errs...)
}

// quietLogger drops go-sql-driver's messages about connections refused
// while the server starts.
type quietLogger struct{}

func (quietLogger) Print(...any) {}

// mysqlDB is a one-connection pool to MariaDB on 127.0.0.1 as bench.
func mysqlDB(port int, password string) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = dbUser, password
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dbName
	cfg.Timeout = 3 * time.Second
	cfg.Logger = quietLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		panic(err) // only for a malformed Config, which this is not
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db
}

// mariadbKind is MariaDB: mariadb-install-db and mariadbd (or their mysql
// names); knobs in my.cnf's [mariadbd], where '-' and '_' are alike; as
// root it runs as root; SIGTERM for a clean shutdown. Its targets are
// mysql:// URLs.
var mariadbKind = &kindDef{
	kind:    MariaDB,
	title:   "MariaDB",
	aliases: []string{"mysql"},
	reserved: map[string]string{
		"port": "--port", "bind_address": "", "socket": "", "datadir": "", "pid_file": "", "user": "",
		"log_error": "", "init_file": "", "skip_networking": "", "skip_grant_tables": "", "defaults_file": "",
	},
	dashes:     true,
	asRoot:     true,
	stopSignal: syscall.SIGTERM,
	find: func(spec Spec) (binaries, error) {
		var b binaries
		var err error
		b.dir, b.path, err = findPrograms(spec.BinDir, spec.Getenv("PATH"), "MariaDB", "mariadb-server",
			[]string{"mariadbd", "mysqld"}, []string{"mariadb-install-db", "mysql_install_db"})
		return b, err
	},
	start:     startMariaDB,
	targetURL: func(u *url.URL) { u.Scheme = "mysql" },
	describe: func(spec Spec) (string, []string, error) {
		bins, err := findBinaries(spec)
		if err != nil {
			return "", nil, err
		}
		return bins.path["mariadbd"], []string{"--no-defaults", "--help", "--verbose"}, nil
	},
	// After "Variables (--variable-name=value)" and its ruler, one "name
	// value" per line until a blank line.
	parse: func(d *kindDef, sc *bufio.Scanner, known map[string]bool) {
		inVariables := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "Variables (--variable-name=value)"):
				inVariables = true
			case inVariables && strings.TrimSpace(line) == "":
				inVariables = false
			case inVariables && !strings.HasPrefix(line, "---"):
				if f := strings.Fields(line); len(f) > 0 {
					known[d.normal(f[0])] = true
				}
			}
		}
	},
}
