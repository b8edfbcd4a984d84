package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
)

func TestRebind(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT c FROM t WHERE id = ?", "SELECT c FROM t WHERE id = $1"},
		{"INSERT INTO t VALUES (?, ?, ?)", "INSERT INTO t VALUES ($1, $2, $3)"},
		{"SELECT '?' , ? FROM t", "SELECT '?' , $1 FROM t"},
		{"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"},
		{`SELECT "we?ird" FROM t WHERE a = ?`, `SELECT "we?ird" FROM t WHERE a = $1`},
		{"SELECT ? -- what?\n, ?", "SELECT $1 -- what?\n, $2"},
		{"SELECT /* ? */ ?", "SELECT /* ? */ $1"},
		{"SELECT 'unterminated ?", "SELECT 'unterminated ?"},
		{"UPDATE t SET a=?,b=? WHERE c=? AND d='x?y'", "UPDATE t SET a=$1,b=$2 WHERE c=$3 AND d='x?y'"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := Rebind(tc.in); got != tc.want {
				t.Errorf("Rebind(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

type netErr struct{}

func (netErr) Error() string   { return "broken pipe" }
func (netErr) Timeout() bool   { return false }
func (netErr) Temporary() bool { return false }

var _ net.Error = netErr{}

func TestClassify(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		err  error
		want engine.ErrorClass
	}{
		{"nil", nil, engine.ClassOther},
		{"serialization", &pgconn.PgError{Code: "40001"}, engine.ClassSerialization},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, engine.ClassDeadlock},
		{"lock_not_available", &pgconn.PgError{Code: "55P03"}, engine.ClassDeadlock},
		{"unique", &pgconn.PgError{Code: "23505"}, engine.ClassUniqueViolation},
		{"wrapped_unique", fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23505"}), engine.ClassUniqueViolation},
		{"fk", &pgconn.PgError{Code: "23503"}, engine.ClassOther},
		{"syntax", &pgconn.PgError{Code: "42601"}, engine.ClassOther},
		{"admin_shutdown", &pgconn.PgError{Code: "57P01"}, engine.ClassConnLost},
		{"connection_failure", &pgconn.PgError{Code: "08006"}, engine.ClassConnLost},
		{"eof", fmt.Errorf("read: %w", io.EOF), engine.ClassConnLost},
		{"unexpected_eof", io.ErrUnexpectedEOF, engine.ClassConnLost},
		{"net", &net.OpError{Op: "read", Err: netErr{}}, engine.ClassConnLost},
		{"conn_closed", pgconn.ErrConnClosed, engine.ClassConnLost},
		{"canceled", context.Canceled, engine.ClassCanceled},
		{"deadline", fmt.Errorf("q: %w", context.DeadlineExceeded), engine.ClassCanceled},
		{"canceled_server", engine.CtxErr(canceled, &pgconn.PgError{Code: "57014"}), engine.ClassCanceled},
		{"canceled_net", engine.CtxErr(canceled, io.EOF), engine.ClassCanceled},
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
		{schema.Column{Type: schema.Int}, "INTEGER"},
		{schema.Column{Type: schema.BigInt}, "BIGINT"},
		{schema.Column{Type: schema.Serial}, "SERIAL"},
		{schema.Column{Type: schema.Char, Size: 10}, "CHAR(10)"},
		{schema.Column{Type: schema.Varchar, Size: 60}, "VARCHAR(60)"},
		{schema.Column{Type: schema.Text}, "TEXT"},
		{schema.Column{Type: schema.Float}, "DOUBLE PRECISION"},
		{schema.Column{Type: schema.Decimal, Size: 12, Scale: 2}, "NUMERIC(12, 2)"},
		{schema.Column{Type: schema.Timestamp}, "TIMESTAMP"},
		{schema.Column{Type: schema.Bool}, "BOOLEAN"},
		{schema.Column{Type: schema.JSON}, "JSONB"},
	} {
		if got := d.ColumnType(tc.c); got != tc.want {
			t.Errorf("ColumnType(%v, %d, %d) = %q, want %q", tc.c.Type, tc.c.Size, tc.c.Scale, got, tc.want)
		}
	}
	if got := d.QuoteIdent(`we"ird`); got != `"we""ird"` {
		t.Errorf("QuoteIdent = %s", got)
	}
}

func TestConfig(t *testing.T) {
	const pw = "s3cr3t-pw"
	tg, err := engine.ParseTarget("postgres://bench:"+pw+"@db.example:6543/bench?sslmode=disable&default_query_exec_mode=exec", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Config(tg, engine.Options{ConnectTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Password != pw || cfg.User != "bench" || cfg.Host != "db.example" || cfg.Port != 6543 || cfg.Database != "bench" {
		t.Errorf("config = %s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
	}
	if cfg.ConnectTimeout != 3*time.Second {
		t.Errorf("ConnectTimeout = %v", cfg.ConnectTimeout)
	}
	if cfg.DefaultQueryExecMode != pgx.QueryExecModeExec {
		t.Errorf("exec mode = %v", cfg.DefaultQueryExecMode)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", tg, tg, tg, tg.URL); strings.Contains(s, pw) {
		t.Errorf("target prints its password: %s", s)
	}

	// A malformed parameter: the error names the target, not the password.
	bad := tg
	bad.URL = &url.URL{Scheme: "postgres", User: url.User("bench"), Host: "db.example", Path: "/bench", RawQuery: "connect_timeout=forever"}
	_, err = Config(bad, engine.Options{})
	if err == nil || !errors.Is(err, engine.ErrBadTarget) || strings.Contains(err.Error(), pw) {
		t.Errorf("bad parameter: %v", err)
	}

	// A connection error is our own text: user and host, never the password.
	e := &Engine{target: tg, config: cfg}
	for _, cause := range []error{
		&pgconn.PgError{Severity: "FATAL", Code: "28P01", Message: "password authentication failed for user \"bench\""},
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")},
	} {
		err := e.connectError(context.Background(), fmt.Errorf("failed to connect to `password=%s`: %w", pw, cause))
		msg := err.Error()
		if strings.Contains(msg, pw) || !strings.Contains(msg, "bench@db.example:6543") || !errors.Is(err, engine.ErrConnect) {
			t.Errorf("connect error %q", msg)
		}
		var pgErr *pgconn.PgError
		if isAuth := errors.As(cause, &pgErr); errors.Is(err, engine.ErrAuth) != isAuth {
			t.Errorf("%q: errors.Is(ErrAuth) = %v", msg, !isAuth)
		}
	}
}
