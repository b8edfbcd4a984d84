// Package sqlproc installs a workload's server-side routines (stored
// procedures and functions) on a SQL engine, drops them and writes their
// calls: the plumbing the workloads' --mode procedure shares, while the
// routines' code stays with each workload, one file per engine.
//
// An Installer is one engine's way: Postgres for PL/pgSQL functions,
// MySQL for MySQL/MariaDB procedures or functions. Install replaces any
// earlier version of the routines it is given, so it is idempotent;
// Uninstall drops the routines named where present and nothing else.
// Both are meant for setup, on a connection no one else uses; they run
// their statements one after the other on it.
package sqlproc

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// Routine is one server-side routine: its name and the statement that
// creates it.
type Routine struct {
	Name   string
	Create string
}

// Installer puts routines on one engine and takes them off.
type Installer interface {
	// Install creates rs in c's current schema or database, in order,
	// replacing the routines of the same names already there.
	Install(ctx context.Context, c engine.SQLConn, rs []Routine) error
	// Uninstall drops the routines called names where present.
	Uninstall(ctx context.Context, c engine.SQLConn, names []string) error
	// Call is the statement ('?' placeholders) that runs routine name
	// with n arguments.
	Call(name string, n int) string
}

// Marks is n '?' placeholders separated by ", " ("" for none).
func Marks(n int) string {
	if n <= 0 {
		return ""
	}
	return "?" + strings.Repeat(", ?", n-1)
}

// Call is verb name(?, …) with n placeholders: "SELECT f(?, ?)",
// "CALL p(?)", "SELECT a, b FROM f(?)".
func Call(verb, name string, n int) string {
	return verb + " " + name + "(" + Marks(n) + ")"
}

// Pick lists the routines of names that sources has a statement for, in
// the order of names, leaving out the others.
func Pick(names []string, sources map[string]string) []Routine {
	var out []Routine
	for _, n := range names {
		if src, ok := sources[n]; ok {
			out = append(out, Routine{Name: n, Create: src})
		}
	}
	return out
}

// Names are the routines' names, in order.
func Names(rs []Routine) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

// args are names as statement arguments.
func args(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// Postgres installs PL/pgSQL functions, called with SELECT.
type Postgres struct{}

var _ Installer = Postgres{}

// pgOverloadsSQL lists the signatures of every overload of n names (its
// arguments) in the current schema.
func pgOverloadsSQL(n int) string {
	return `SELECT p.oid::regprocedure::text FROM pg_proc p
 WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
   AND p.proname IN (` + Marks(n) + `)
 ORDER BY 1`
}

// Install drops every overload of the routines' names in c's current
// schema and creates the routines, in one transaction: a failure leaves
// the earlier versions in place.
func (p Postgres) Install(ctx context.Context, c engine.SQLConn, rs []Routine) error {
	return p.inTx(ctx, c, func() error {
		if err := p.drop(ctx, c, Names(rs)); err != nil {
			return err
		}
		for _, r := range rs {
			if err := c.Exec(ctx, r.Create); err != nil {
				return fmt.Errorf("creating %s: %w", r.Name, err)
			}
		}
		return nil
	})
}

// Uninstall drops every overload of names in c's current schema, in one
// transaction.
func (p Postgres) Uninstall(ctx context.Context, c engine.SQLConn, names []string) error {
	return p.inTx(ctx, c, func() error { return p.drop(ctx, c, names) })
}

// Call is SELECT name(?, …).
func (Postgres) Call(name string, n int) string { return Call("SELECT", name, n) }

// inTx runs fn in a transaction on c, committed when fn succeeds and
// rolled back when it fails.
func (Postgres) inTx(ctx context.Context, c engine.SQLConn, fn func() error) (err error) {
	if err := c.Begin(ctx); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = c.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := fn(); err != nil {
		return err
	}
	return c.Commit(ctx)
}

// drop drops every overload of names in the current schema.
func (Postgres) drop(ctx context.Context, c engine.SQLConn, names []string) error {
	if len(names) == 0 {
		return nil
	}
	var sigs []string
	err := c.QueryRows(ctx, pgOverloadsSQL(len(names)), args(names), func(row []any) error {
		s, ok := row[0].(string)
		if !ok {
			return fmt.Errorf("function signature %v is a %T", row[0], row[0])
		}
		sigs = append(sigs, s)
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing functions: %w", err)
	}
	for _, s := range sigs {
		// The signature comes from regprocedure's output, which quotes
		// the names that need it.
		if err := c.Exec(ctx, "DROP FUNCTION IF EXISTS "+s); err != nil {
			return err
		}
	}
	return nil
}

// MySQL installs MySQL/MariaDB routines of one type: stored procedures,
// called with CALL, or stored functions, called with SELECT. The server
// has no transactional DDL: Install drops and creates one routine after
// the other.
type MySQL struct {
	// Functions: the routines are functions; otherwise procedures.
	Functions bool
}

var _ Installer = MySQL{}

// typ is the routines' type in DDL and information_schema.
func (m MySQL) typ() string {
	if m.Functions {
		return "FUNCTION"
	}
	return "PROCEDURE"
}

// Install drops each routine where present and creates it.
func (m MySQL) Install(ctx context.Context, c engine.SQLConn, rs []Routine) error {
	for _, r := range rs {
		if err := c.Exec(ctx, "DROP "+m.typ()+" IF EXISTS "+r.Name); err != nil {
			return err
		}
		if err := c.Exec(ctx, r.Create); err != nil {
			return fmt.Errorf("creating %s: %w", r.Name, err)
		}
	}
	return nil
}

// Uninstall drops the routines called names where present.
func (m MySQL) Uninstall(ctx context.Context, c engine.SQLConn, names []string) error {
	for _, n := range names {
		if err := c.Exec(ctx, "DROP "+m.typ()+" IF EXISTS "+n); err != nil {
			return err
		}
	}
	return nil
}

// Call is CALL name(?, …) for a procedure, SELECT name(?, …) for a
// function.
func (m MySQL) Call(name string, n int) string {
	if m.Functions {
		return Call("SELECT", name, n)
	}
	return Call("CALL", name, n)
}

// Missing returns those of names that are not routines of m's type in c's
// current database, in the order of names. (The server prepares a CALL of
// a missing procedure without complaint: only a look at
// information_schema tells.)
func (m MySQL) Missing(ctx context.Context, c engine.SQLConn, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	have := map[string]bool{}
	err := c.QueryRows(ctx, `SELECT routine_name FROM information_schema.routines
 WHERE routine_schema = DATABASE() AND routine_type = '`+m.typ()+`' AND routine_name IN (`+Marks(len(names))+`)`, args(names),
		func(row []any) error {
			if s, ok := row[0].(string); ok {
				have[s] = true
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("listing %ss: %w", strings.ToLower(m.typ()), err)
	}
	var missing []string
	for _, n := range names {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	return missing, nil
}
