// Package payments is the funds-transfer workload of the MySQL/PostgreSQL
// payments study: organizations, users, permissions, tokens, accounts,
// cards and transfers. One transfer takes four round trips and touches six
// tables:
//
//  1. the acquiring user, by token hash, with the token's permission;
//  2. the issuing account and card, by card id, checked in the client
//     (balance, frozen, expiry, security code);
//  3. the issuing user, by token hash, checked to belong to the issuing
//     account's organization;
//  4. one transaction: debit, credit, insert the transfer row.
//
// Without --lock-order (the study's behaviour) the debit comes first, so
// two opposite transfers can deadlock; the deadlocks are retried with the
// same input after a back-off and counted as retries. With --lock-order the
// two accounts are updated in id order. --deletes deletes one earlier
// transfer every 20 transfers (a second operation, counted apart).
// A transfer the checks decline (not enough money) is rolled back on
// purpose and counted as a rollback.
//
// # MongoDB
//
// The implementation for MongoDB is package workload/payments/mongo,
// registered for engine.FamilyMongo: this package holds what every family
// shares (options, data generator, a worker's input and its deletes) and
// the SQL statements and procedures, and imports no engine implementation
// or driver.
//
// On MongoDB the seven tables are collections of the same rows, made by
// the same generator. They reference each other by id, as the tables do,
// rather than embedding one in another (cards in accounts, tokens in
// users): a transfer reads and writes the same entities in the same four
// round trips on every engine, the joins of steps 1 to 3 becoming one
// aggregation each with $lookup stages. A table's single-column primary
// key is the documents' _id (tokens: the hash), so every lookup of a
// transfer goes by _id; transfers, whose SQL key is a SERIAL, get
// ObjectIds made by the client (no counter document that every transfer
// would contend on). The one secondary index is the SQL one,
// transfers_from. Money is Decimal128 with two decimal places, as
// DECIMAL(14,2) holds it, and accounts carries the validator {balance:
// {$gte: 0}} for the CHECK constraint.
//
// Step 4 is a transaction on the worker's session. The debit is
// updateOne({_id, balance: {$gte: amount}}, {$inc: {balance: -amount}});
// when it matches nothing the transaction is aborted and the transfer
// declined, as when the SQL UPDATE … AND balance >= ? changes no row.
// Then the credit, the transfer document and commitTransaction. Where
// PostgreSQL and MySQL make a transaction wait for the one holding the
// row and then read its outcome, MongoDB does not wait: the guard sees
// the balance as of the transaction's snapshot, and a write to a document
// that another open transaction has written fails at once with a write
// conflict (TransientTransactionError). Write conflicts are retried with
// the same input after the back-off, as deadlocks are. Since they happen
// in either order, --lock-order on MongoDB changes the order of the two
// updates and avoids nothing: under contention there are retries with or
// without it, and a few accounts shared by many threads may need more
// than the default --max-retries. --mode procedure has no MongoDB
// counterpart and is refused. Statements are counted as on SQL (the
// lookups as reads; updates, inserts and deletes as writes; starting,
// committing and aborting a transaction as other), and check runs the
// same checks as aggregation pipelines.
package payments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

func init() { workload.Register(meta()) }

func meta() workload.Meta {
	return workload.Meta{
		Name:        "payments",
		Description: "funds transfers (MySQL/PostgreSQL payments study): token, card and account checks, then debit, credit and insert in one transaction; deadlocks retried",
		Version:     "1",
		New:         func() workload.Workload { return New() },
	}
}

// Ops are the transfer and the delete.
const (
	OpTransfer = iota
	OpDelete
)

type options struct {
	accounts, organizations, users int
	deletes, lockOrder             bool
	mode                           string
	balance                        float64
	seedData                       uint64
}

// Payments is a workload, and its workers replay a transfer.
var (
	_ workload.Workload = (*Payments)(nil)
	_ workload.Replayer = (*worker)(nil)
)

// Payments is the workload with its options, and its implementation for
// SQL engines (the procedures of --mode procedure included). Its exported
// methods besides Define and Open (DataTables, Accounts, …) are what the
// implementation for MongoDB (workload/payments/mongo) shares. It keeps
// no state of a run: its workers share none.
type Payments struct {
	opts options
	fs   *pflag.FlagSet
	// loadTime dates the tokens' and cards' expiry (ten years on).
	loadTime time.Time
}

// New returns the workload with default options.
func New() *Payments {
	w := &Payments{fs: pflag.NewFlagSet("payments", pflag.ContinueOnError), loadTime: time.Now().UTC().Truncate(time.Second)}
	o := &w.opts
	fs := w.fs
	fs.IntVar(&o.accounts, "accounts", 100000, "accounts, one card each")
	fs.IntVar(&o.organizations, "organizations", 10, "organizations the accounts and users belong to (round robin)")
	fs.IntVar(&o.users, "users", 1000, "users, one transfer token each (round robin over the organizations)")
	fs.BoolVar(&o.deletes, "deletes", true, "delete one earlier transfer every 20 transfers, as the study did")
	fs.StringVar(&o.mode, "mode", ModeClient, "where step 4 (debit, credit, transfer row) runs: client (statements from dbarena) or procedure (a PL/pgSQL function on PostgreSQL, as the study did; a stored procedure on MySQL/MariaDB; none on SQLite or MongoDB)")
	fs.BoolVar(&o.lockOrder, "lock-order", false, "update the two accounts of a transfer in id order, which avoids the deadlocks of opposite transfers (the study did not); on MongoDB, whose write conflicts happen in either order, it avoids nothing")
	fs.Float64Var(&o.balance, "initial-balance", 1000, "every account's balance after prepare (check compares the sum with accounts × this)")
	fs.Uint64Var(&o.seedData, "seed-data", 0, "seed of the tokens and security codes")
	return w
}

// Define is the transfers on SQL engines: the options, of which the
// accounts, organizations and users, the balance they start with and the
// data's seed define the data; the seven tables; the transfer and the
// delete, with their rates (Metrics); the procedures of --mode procedure
// (Install, Uninstall); the checks; and the runner's defaults for the
// replays: the engine's isolation level (--isolation),
// workload.DefaultRetryPolicy (--max-retries, --retry-backoff,
// --retry-backoff-max), stated so that every result records them as the
// options they are.
func (w *Payments) Define() workload.Spec {
	return workload.Spec{
		Meta:        meta(),
		Options:     w.fs,
		Validate:    w.validate,
		DataOptions: []string{"accounts", "organizations", "users", "initial-balance", "seed-data"},
		Tables:      w.tables,
		Install:     w.Install,
		Uninstall:   w.Uninstall,
		Check:       w.check,
		CheckDoc: "The accounts keep their count (--accounts) and their total balance (accounts × --initial-balance): a transfer moves money, it neither makes nor loses any; " +
			"no balance is below zero (a transfer that would overdraw rolls back); every transfer names two accounts that exist.",
		Ops:         []workload.Op{{Name: "transfer"}, {Name: "delete"}},
		Metrics:     []string{"transfers/min", "deletes/min", "declined/min"},
		RunDefaults: &workload.RunDefaults{Retry: workload.DefaultRetryPolicy()},
	}
}

// Open starts a run on an SQL engine. Its workers share nothing; the
// run's figures are Metrics.
func (w *Payments) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: w.newWorker, Metrics: Metrics}, nil
}

// MaxRows bounds --accounts, --organizations and --users: their ids are
// 32-bit integers.
const MaxRows = math.MaxInt32

// validate reports every bad option at once.
func (w *Payments) validate() []error {
	var errs []error
	o := &w.opts
	bad := func(flag string, v any, why string) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(v), Err: why})
	}
	if o.accounts < 2 {
		bad("accounts", o.accounts, "must be at least 2 (a transfer needs two accounts)")
	}
	for _, c := range []struct {
		flag string
		n    int
	}{{"accounts", o.accounts}, {"organizations", o.organizations}, {"users", o.users}} {
		if c.n > MaxRows {
			bad(c.flag, c.n, fmt.Sprintf("at most %d (the tables' ids are INT)", MaxRows))
		}
	}
	if o.organizations < 1 {
		bad("organizations", o.organizations, "must be at least 1")
	}
	if o.users < o.organizations {
		bad("users", o.users, fmt.Sprintf("must be at least --organizations (%d): every organization needs a user", o.organizations))
	}
	if o.balance < 0 || o.balance >= 1e10 {
		bad("initial-balance", o.balance, "must be between 0 and 10,000,000,000")
	}
	if o.mode != ModeClient && o.mode != ModeProcedure {
		bad("mode", o.mode, "must be client or procedure")
	}
	return errs
}

// Accounts is --accounts.
func (w *Payments) Accounts() int { return w.opts.accounts }

// InitialBalance is --initial-balance, every account's balance after
// prepare.
func (w *Payments) InitialBalance() float64 { return w.opts.balance }

// LockOrder is --lock-order: a transfer updates its two accounts in id
// order.
func (w *Payments) LockOrder() bool { return w.opts.lockOrder }

// Mode is --mode: ModeClient or ModeProcedure.
func (w *Payments) Mode() string { return w.opts.mode }

// orgOf is the organization of account or user id (round robin).
func (w *Payments) orgOf(id int64) int64 { return (id-1)%int64(w.opts.organizations) + 1 }

// tokenHash is the hex SHA-256 of user id's transfer token.
func (w *Payments) tokenHash(user int64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "dbarena-payments/%d/token/%d", w.opts.seedData, user))
	return hex.EncodeToString(sum[:])
}

// securityCode is card id's three-digit code.
func (w *Payments) securityCode(card int64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "dbarena-payments/%d/card/%d", w.opts.seedData, card))
	return fmt.Sprintf("%03d", (int(sum[0])<<8|int(sum[1]))%1000)
}

// Permissions are the permissions a token can carry; tokens carry transfer.
var permissions = []string{"transfer", "read", "admin"}

// tables are the seven tables (collections on MongoDB), declared by
// declared; transfers starts empty. Every engine loads the same rows from
// DataTables.
func (w *Payments) tables(engine.Dialect) []workload.Table {
	out := w.DataTables()
	decl := declared()
	for i := range out {
		out[i].Schema = decl[i]
	}
	return out
}

// declared are the seven tables: a one-column primary key each (on
// MongoDB the documents' _id; transfers' SERIAL id becomes an ObjectId
// there), money as DECIMAL(14,2) (Decimal128 with two decimal places on
// MongoDB), the balance never negative (a CHECK, a validator on MongoDB)
// and one secondary index, transfers_from; every lookup of a transfer
// goes by its id.
func declared() []*schema.Table {
	intC := func(name string) schema.Column { return schema.Column{Name: name, Type: schema.Int} }
	str := func(ty schema.Type, name string, n int) schema.Column {
		return schema.Column{Name: name, Type: ty, Size: n}
	}
	money := func(name string) schema.Column {
		return schema.Column{Name: name, Type: schema.Decimal, Size: 14, Scale: 2}
	}
	ts := func(name string) schema.Column { return schema.Column{Name: name, Type: schema.Timestamp} }
	boolC := func(name string) schema.Column { return schema.Column{Name: name, Type: schema.Bool} }
	id := []string{"id"}
	return []*schema.Table{
		{Name: "organizations", PrimaryKey: id, Columns: []schema.Column{intC("id"), str(schema.Varchar, "name", 60)}},
		{Name: "users", PrimaryKey: id, Columns: []schema.Column{intC("id"), intC("organization_id"), str(schema.Varchar, "name", 60), str(schema.Varchar, "email", 80)}},
		{Name: "permissions", PrimaryKey: id, Columns: []schema.Column{intC("id"), str(schema.Varchar, "name", 20)}},
		{Name: "tokens", PrimaryKey: []string{"hash"}, Columns: []schema.Column{str(schema.Char, "hash", 64), intC("permission_id"), intC("user_id"), ts("expires_at")}},
		{
			Name: "accounts", PrimaryKey: id,
			Columns: []schema.Column{intC("id"), intC("organization_id"), money("balance"), boolC("frozen")},
			Checks:  []schema.Check{{Name: "accounts_balance", Column: "balance", Op: ">=", Value: 0}},
		},
		{Name: "cards", PrimaryKey: id, Columns: []schema.Column{intC("id"), intC("account_id"), intC("expiry"), str(schema.Char, "security_code", 3), boolC("frozen")}},
		{
			Name: "transfers", PrimaryKey: id,
			Columns: []schema.Column{{Name: "id", Type: schema.Serial}, intC("card_id"), intC("from_account"), intC("to_account"), intC("user_id"), money("amount"), ts("created_at")},
			Indexes: []schema.Index{{Name: "transfers_from", Keys: []schema.Key{schema.Col("from_account")}}},
		},
	}
}

// DataTables are the tables' names, columns (as the SQL tables name them)
// and initial rows, in creation order, for every engine.
func (w *Payments) DataTables() []workload.Table {
	o := w.opts
	expires := w.loadTime.AddDate(10, 0, 0)
	cardExpiry := int64(expires.Year()*100 + int(expires.Month())) // yyyymm
	batch := 10000
	batches := func(n int) int { return (n + batch - 1) / batch }
	ranged := func(n, b int, row func(id int64) []any) engine.RowSource {
		lo := b * batch
		return workload.FuncRows(min(batch, n-lo), func(i int) []any { return row(int64(lo + i + 1)) })
	}
	return []workload.Table{
		{
			Name:    "organizations",
			Columns: []string{"id", "name"}, Batches: 1,
			Rows: func(int) engine.RowSource {
				return ranged(o.organizations, 0, func(id int64) []any { return []any{id, fmt.Sprintf("Organization %d", id)} })
			},
		},
		{
			Name:    "users",
			Columns: []string{"id", "organization_id", "name", "email"}, Batches: batches(o.users),
			Rows: func(b int) engine.RowSource {
				return ranged(o.users, b, func(id int64) []any {
					return []any{id, w.orgOf(id), fmt.Sprintf("User %d", id), fmt.Sprintf("user%d@example.com", id)}
				})
			},
		},
		{
			Name:    "permissions",
			Columns: []string{"id", "name"}, Batches: 1,
			Rows: func(int) engine.RowSource {
				return workload.FuncRows(len(permissions), func(i int) []any { return []any{int64(i + 1), permissions[i]} })
			},
		},
		{
			Name:    "tokens",
			Columns: []string{"hash", "permission_id", "user_id", "expires_at"}, Batches: batches(o.users),
			Rows: func(b int) engine.RowSource {
				return ranged(o.users, b, func(id int64) []any { return []any{w.tokenHash(id), int64(1), id, expires} })
			},
		},
		{
			Name:    "accounts",
			Columns: []string{"id", "organization_id", "balance", "frozen"}, Batches: batches(o.accounts),
			Rows: func(b int) engine.RowSource {
				return ranged(o.accounts, b, func(id int64) []any { return []any{id, w.orgOf(id), o.balance, false} })
			},
		},
		{
			Name:    "cards",
			Columns: []string{"id", "account_id", "expiry", "security_code", "frozen"}, Batches: batches(o.accounts),
			Rows: func(b int) engine.RowSource {
				return ranged(o.accounts, b, func(id int64) []any { return []any{id, id, cardExpiry, w.securityCode(id), false} })
			},
		},
		{
			Name:    "transfers",
			Columns: []string{"id", "card_id", "from_account", "to_account", "user_id", "amount", "created_at"},
		},
	}
}

// check verifies the invariants transfers keep: money is neither made nor
// lost (the balances sum to --accounts × --initial-balance), no balance is
// negative, and every transfer row references existing accounts. On
// MongoDB the same checks are aggregations (workload/payments/mongo).
func (w *Payments) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return nil, cerr
	}
	return w.checkSQL(ctx, c)
}
