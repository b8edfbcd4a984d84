package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
)

func TestClassify(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		err  error
		want engine.ErrorClass
	}{
		{"nil", nil, engine.ClassOther},
		{"deadlock", &mysql.MySQLError{Number: 1213}, engine.ClassDeadlock},
		{"lock_wait_timeout", &mysql.MySQLError{Number: 1205}, engine.ClassDeadlock},
		{"dup_entry", &mysql.MySQLError{Number: 1062}, engine.ClassUniqueViolation},
		{"wrapped_dup_entry", fmt.Errorf("insert: %w", &mysql.MySQLError{Number: 1062}), engine.ClassUniqueViolation},
		{"record_changed", &mysql.MySQLError{Number: 1020}, engine.ClassSerialization},
		{"server_gone", &mysql.MySQLError{Number: 2006}, engine.ClassConnLost},
		{"killed", &mysql.MySQLError{Number: 1927}, engine.ClassConnLost},
		{"syntax", &mysql.MySQLError{Number: 1064}, engine.ClassOther},
		{"bad_conn", driver.ErrBadConn, engine.ClassConnLost},
		{"invalid_conn", fmt.Errorf("x: %w", mysql.ErrInvalidConn), engine.ClassConnLost},
		{"eof", io.EOF, engine.ClassConnLost},
		{"net", &net.OpError{Op: "read", Err: errors.New("reset")}, engine.ClassConnLost},
		{"canceled", context.Canceled, engine.ClassCanceled},
		{"deadline", context.DeadlineExceeded, engine.ClassCanceled},
		{"canceled_bad_conn", engine.CtxErr(canceled, driver.ErrBadConn), engine.ClassCanceled},
		{"plain", errors.New("boom"), engine.ClassOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Dialect{}).Classify(tc.err); got != tc.want {
				t.Errorf("Classify(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestColumnType(t *testing.T) {
	d := Dialect{}
	for _, tc := range []struct {
		c    schema.Column
		want string
	}{
		{schema.Column{Type: schema.Int}, "INT"},
		{schema.Column{Type: schema.BigInt}, "BIGINT"},
		{schema.Column{Type: schema.Serial}, "INTEGER NOT NULL AUTO_INCREMENT"},
		{schema.Column{Type: schema.Char, Size: 10}, "CHAR(10)"},
		{schema.Column{Type: schema.Varchar, Size: 60}, "VARCHAR(60)"},
		{schema.Column{Type: schema.Text}, "LONGTEXT"},
		{schema.Column{Type: schema.Float}, "DOUBLE"},
		{schema.Column{Type: schema.Decimal, Size: 12, Scale: 2}, "DECIMAL(12, 2)"},
		{schema.Column{Type: schema.Timestamp}, "DATETIME(6)"},
		{schema.Column{Type: schema.Bool}, "BOOLEAN"},
		{schema.Column{Type: schema.JSON}, "JSON"},
	} {
		if got := d.ColumnType(tc.c); got != tc.want {
			t.Errorf("ColumnType(%v) = %q, want %q", tc.c.Type, got, tc.want)
		}
	}
	if got := d.QuoteIdent("we`ird"); got != "`we``ird`" {
		t.Errorf("QuoteIdent = %s", got)
	}
	if got := d.Rebind("SELECT '?', ?"); got != "SELECT '?', ?" {
		t.Errorf("Rebind = %s", got)
	}
}

func TestConfig(t *testing.T) {
	const pw = "s3cr3t-pw"
	for _, tc := range []struct {
		url, net, addr, db string
	}{
		{"mysql://bench:" + pw + "@db.example:3307/sbtest?tls=skip-verify", "tcp", "db.example:3307", "sbtest"},
		{"mariadb://bench:" + pw + "@db.example/sbtest", "tcp", "db.example:3306", "sbtest"},
		{"mysql://bench:" + pw + "@localhost/sbtest?socket=/run/mysqld/mysqld.sock", "unix", "/run/mysqld/mysqld.sock", "sbtest"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			tg, err := engine.ParseTarget(tc.url, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Config(tg, engine.Options{ConnectTimeout: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Net != tc.net || cfg.Addr != tc.addr || cfg.DBName != tc.db || cfg.User != "bench" || cfg.Passwd != pw {
				t.Errorf("config %s(%s)/%s user %s", cfg.Net, cfg.Addr, cfg.DBName, cfg.User)
			}
			if cfg.Timeout != 3*time.Second || !cfg.ParseTime || cfg.InterpolateParams {
				t.Errorf("timeout %v parseTime %v interpolate %v", cfg.Timeout, cfg.ParseTime, cfg.InterpolateParams)
			}
			if s := fmt.Sprintf("%v %+v %#v %s", tg, tg, tg, tg.URL); strings.Contains(s, pw) {
				t.Errorf("target prints its password: %s", s)
			}
		})
	}
	tg, _ := engine.ParseTarget("mysql://bench:"+pw+"@db.example/x?readTimeout=soon", "", nil)
	if _, err := Config(tg, engine.Options{}); err == nil || !errors.Is(err, engine.ErrBadTarget) || strings.Contains(err.Error(), pw) {
		t.Errorf("bad parameter: %v", err)
	}
	tg, _ = engine.ParseTarget("mysql://bench:"+pw+"@db.example:3306/x", "", nil)
	cfg, _ := Config(tg, engine.Options{})
	e := &Engine{target: tg, config: cfg}
	for _, cause := range []error{
		&mysql.MySQLError{Number: 1045, Message: "Access denied for user 'bench'@'10.0.0.1' (using password: YES)"},
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")},
	} {
		err := e.connectError(cause)
		msg := err.Error()
		if strings.Contains(msg, pw) || !strings.Contains(msg, "bench") || !strings.Contains(msg, "db.example:3306") || !errors.Is(err, engine.ErrConnect) {
			t.Errorf("connect error %q", msg)
		}
		_, isMy := cause.(*mysql.MySQLError)
		if errors.Is(err, engine.ErrAuth) != isMy {
			t.Errorf("%q: errors.Is(ErrAuth) = %v", msg, !isMy)
		}
	}
}

func TestVersionString(t *testing.T) {
	for in, want := range map[string]string{
		"10.11.19-MariaDB-0+deb12u1": "MariaDB 10.11.19",
		"5.5.5-10.6.12-MariaDB":      "MariaDB 10.6.12",
		"8.0.36":                     "MySQL 8.0.36",
		"8.4.0-commercial":           "MySQL 8.4.0",
	} {
		if got := versionString(in); got != want {
			t.Errorf("versionString(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalize(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		typ  string
		in   any
		want any
	}{
		{"INT", []byte("42"), int64(42)},
		{"UNSIGNED BIGINT", []byte("18446744073709551615"), "18446744073709551615"},
		{"UNSIGNED INT", uint64(7), int64(7)},
		{"DECIMAL", []byte("12.25"), 12.25},
		{"DOUBLE", []byte("1.5"), 1.5},
		{"FLOAT", float32(0.5), 0.5},
		{"VARCHAR", []byte("abc"), "abc"},
		{"CHAR", []byte("x"), "x"},
		{"TEXT", []byte("long"), "long"},
		{"DATETIME", ts, ts},
		{"INT", nil, nil},
		{"BIGINT", int64(9), int64(9)},
	} {
		if got := normalize(kindOf(tc.typ), tc.in); got != tc.want {
			t.Errorf("normalize(%s, %#v) = %#v, want %#v", tc.typ, tc.in, got, tc.want)
		}
	}
	if got := normalize(kindOf("BLOB"), []byte{1, 2}); string(got.([]byte)) != "\x01\x02" {
		t.Errorf("blob = %#v", got)
	}
}

func TestInsertSQL(t *testing.T) {
	got := insertSQL("t", []string{"a", "b"}, 3)
	want := "INSERT INTO `t` (`a`, `b`) VALUES (?, ?),(?, ?),(?, ?)"
	if got != want {
		t.Errorf("insertSQL = %q, want %q", got, want)
	}
}

// recordingLogger keeps what the driver logs.
type recordingLogger struct{ lines []string }

func (r *recordingLogger) Print(v ...any) { r.lines = append(r.lines, fmt.Sprint(v...)) }

// A connection the server drops makes the driver log "unexpected EOF" to
// stderr, over the live lines; dbarena's configurations silence it (the
// error itself is returned and reported).
func TestDriverLogsNothing(t *testing.T) {
	rec := &recordingLogger{}
	if err := mysql.SetLogger(rec); err != nil {
		t.Fatal(err)
	}
	defer mysql.SetLogger(mysql.Logger(nil))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close() // before the greeting
		}
	}()
	target, err := engine.ParseTarget("mysql://u:p@"+l.Addr().String()+"/db", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Config(target, engine.Options{ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Connect(context.Background()); err == nil {
		t.Fatal("connecting to a server that hangs up succeeded")
	}
	if len(rec.lines) > 0 {
		t.Errorf("the driver logged %q", rec.lines)
	}
}
