// Package mariadb defines the managed-server kind MariaDB (ServerKind)
// and registers it with package server from its init. Its targets are
// mysql:// URLs, which engine/mysql opens; the two packages do not
// import each other.
package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/server"
)

// ServerKind is the managed-server kind of MariaDB: a MariaDB server
// from the machine's binaries (mariadb-install-db and mariadbd, or their
// mysql names), started by package server. Its targets are mysql:// URLs.
const ServerKind server.Kind = "mariadb"

// init registers the managed-server kind.
func init() { server.RegisterKind(mariadbKind) }

// mariadbKind is MariaDB: mariadb-install-db and mariadbd (or their mysql
// names); knobs in my.cnf's [mariadbd], where '-' and '_' are alike; as
// root it runs as root; SIGTERM for a clean shutdown. Its targets are
// mysql:// URLs.
var mariadbKind = &server.KindDef{
	Kind:    ServerKind,
	Title:   "MariaDB",
	Aliases: []string{"mysql"},
	Order:   20,
	Reserved: map[string]string{
		"port": "--port", "bind_address": "", "socket": "", "datadir": "", "pid_file": "", "user": "",
		"log_error": "", "init_file": "", "skip_networking": "", "skip_grant_tables": "", "defaults_file": "",
	},
	Dashes:     true,
	StopSignal: syscall.SIGTERM,
	Find:       findMariaDB,
	Start:      startMariaDB,
	TargetURL:  func(u *url.URL) { u.Scheme = "mysql" },
	Describe: func(spec server.Spec) (string, []string, error) {
		bins, err := findMariaDB(spec)
		if err != nil {
			return "", nil, err
		}
		return bins.Path["mariadbd"], []string{"--no-defaults", "--help", "--verbose"}, nil
	},
	Parse: parseHelpVerbose,
	PIDFile: func(s *server.Server) string {
		if s.RunDir() == "" {
			return ""
		}
		return pidFile(s.RunDir())
	},
}

// findMariaDB finds mariadbd and mariadb-install-db (or mysqld and
// mysql_install_db).
func findMariaDB(spec server.Spec) (server.Binaries, error) {
	return server.FindPrograms(spec.BinDir, spec.Getenv("PATH"), "MariaDB", "mariadb-server",
		[]string{"mariadbd", "mysqld"}, []string{"mariadb-install-db", "mysql_install_db"})
}

// parseHelpVerbose reads the names from `mariadbd --help --verbose`:
// after "Variables (--variable-name=value)" and its ruler, one "name
// value" per line until a blank line.
func parseHelpVerbose(out []byte) []string {
	var names []string
	inVariables := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "Variables (--variable-name=value)"):
			inVariables = true
		case inVariables && strings.TrimSpace(line) == "":
			inVariables = false
		case inVariables && !strings.HasPrefix(line, "---"):
			if f := strings.Fields(line); len(f) > 0 {
				names = append(names, f[0])
			}
		}
	}
	return names
}

// pidFile is mariadbd's PID file in the server's run directory.
func pidFile(runDir string) string { return filepath.Join(runDir, "mariadbd.pid") }

// startMariaDB writes my.cnf (dbarena's lines, then the knobs, in
// [mariadbd]), makes the data directory with mariadb-install-db from the
// same file (settings fixed at creation, like innodb_page_size, apply),
// starts mariadbd with --defaults-file (nothing from /etc/mysql) on
// 127.0.0.1, creates user bench (all privileges) and database bench from
// an init file, and reads the knobs back. As root it runs as root
// (--user=root); otherwise as the caller.
func startMariaDB(ctx context.Context, st *server.Starting) error {
	spec := st.Spec()
	run := st.RunDir()
	dataDir := filepath.Join(run, "data")
	st.SetDataDir(dataDir)
	cnf := filepath.Join(run, "my.cnf")
	var b strings.Builder
	b.WriteString("# Written by dbarena for managed server " + st.Name() + ".\n[mariadbd]\n")
	fmt.Fprintf(&b, "datadir = %s\nsocket = %s\npid-file = %s\nbind-address = 127.0.0.1\nskip-name-resolve\n",
		dataDir, filepath.Join(run, "mariadbd.sock"), pidFile(run))
	if st.AsRoot() {
		b.WriteString("user = root\n")
	}
	if len(spec.Knobs) > 0 {
		b.WriteString("# The settings asked for:\n")
	}
	for _, k := range spec.Knobs {
		fmt.Fprintf(&b, "%s = %s\n", k.Name, k.Value)
	}
	if err := st.WriteFile(cnf, b.String()); err != nil {
		return err
	}
	if err := st.Setup(ctx, st.Program("mariadb-install-db"), "--defaults-file="+cnf,
		"--auth-root-authentication-method=normal", "--skip-test-db"); err != nil {
		return err
	}

	// The init file runs before the server takes connections: root's
	// TCP accounts without a password never meet the network.
	pw := st.Password().Reveal()
	initFile := filepath.Join(run, "init.sql")
	init := "DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';\n" +
		"FLUSH PRIVILEGES;\n" +
		"ALTER USER 'root'@'localhost' IDENTIFIED BY '" + pw + "';\n" +
		"CREATE DATABASE " + server.Database + ";\n" +
		"CREATE USER '" + server.User + "'@'%' IDENTIFIED BY '" + pw + "';\n" +
		"GRANT ALL PRIVILEGES ON *.* TO '" + server.User + "'@'%' WITH GRANT OPTION;\n"
	if err := st.WriteFile(initFile, init); err != nil {
		return err
	}
	defer os.Remove(initFile)

	command := func(port int) (string, []string, error) {
		return st.Program("mariadbd"), []string{"--defaults-file=" + cnf, "--port=" + strconv.Itoa(port), "--init-file=" + initFile}, nil
	}
	var db *sql.DB
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	ready := func(ctx context.Context) error {
		if db == nil {
			db = mysqlDB(st.Port(), pw)
		}
		err := db.PingContext(ctx)
		if err != nil {
			db.Close()
			db = nil
		}
		return err
	}
	if err := st.Run(ctx, command, ready); err != nil {
		return err
	}
	os.Remove(initFile)
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return err
	}
	st.SetVersion(version)
	return readBackMariaDB(ctx, st, db, spec.Knobs)
}

// readBackMariaDB compares each knob with SHOW GLOBAL VARIABLES ('-' and
// '_' alike, a loose- prefix dropped).
func readBackMariaDB(ctx context.Context, st *server.Starting, db *sql.DB, knobs []server.Knob) error {
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
	var errs []error
	for _, k := range knobs {
		name := strings.ReplaceAll(strings.ToLower(k.Name), "-", "_")
		name = strings.TrimPrefix(name, "loose_")
		got, ok := vars[name]
		switch {
		case !ok:
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: "unknown setting: not among SHOW GLOBAL VARIABLES"})
		case !server.LooseMatches(k.Value, got):
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: fmt.Sprintf("the server reports %s = %s", name, got)})
		default:
			st.SetSetting(k.Name, got)
		}
	}
	return errors.Join(errs...)
}

// mysqlDB is a one-connection pool to MariaDB on 127.0.0.1 as bench.
func mysqlDB(port int, password string) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = server.User, password
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), server.Database
	cfg.Timeout = 3 * time.Second
	// The driver's log lines (connections refused while the server
	// starts) go nowhere: the errors themselves are reported.
	cfg.Logger = log.New(io.Discard, "", 0)
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		panic(err) // only for a malformed Config, which this is not
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db
}
