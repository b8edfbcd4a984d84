package payments

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

// newWorker prepares the statements of a transfer and of a delete on c.
func (w *Payments) newWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return nil, cerr
	}
	if errs := w.validate(); len(errs) > 0 {
		return nil, errs[0]
	}
	k := &worker{WorkerBase: NewWorkerBase(w, env), c: c}
	for _, p := range []struct {
		dst *engine.Stmt
		sql string
	}{
		{&k.acquirer, "SELECT u.id, u.organization_id, p.name, t.expires_at FROM tokens t JOIN users u ON u.id = t.user_id JOIN permissions p ON p.id = t.permission_id WHERE t.hash = ?"},
		{&k.card, "SELECT c.account_id, c.expiry, c.security_code, c.frozen, a.balance, a.frozen, a.organization_id FROM cards c JOIN accounts a ON a.id = c.account_id WHERE c.id = ?"},
		{&k.issuer, "SELECT u.id, u.organization_id FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?"},
		{&k.debit, "UPDATE accounts SET balance = balance - ? WHERE id = ? AND balance >= ?"},
		{&k.credit, "UPDATE accounts SET balance = balance + ? WHERE id = ?"},
		{&k.insert, "INSERT INTO transfers (card_id, from_account, to_account, user_id, amount, created_at) VALUES (?, ?, ?, ?, ?, ?)"},
		{&k.maxID, "SELECT COALESCE(MAX(id), 0) FROM transfers"},
		{&k.findID, "SELECT id FROM transfers WHERE id >= ? ORDER BY id LIMIT 1"},
		{&k.del, "DELETE FROM transfers WHERE id = ?"},
	} {
		st, err := c.Prepare(ctx, p.sql)
		if err != nil {
			return nil, fmt.Errorf("payments: preparing %q: %w", p.sql, err)
		}
		*p.dst = st
	}
	if w.opts.mode == ModeProcedure {
		call, err := procedureCall(c.Dialect())
		if err != nil {
			return nil, err
		}
		if k.call, err = c.Prepare(ctx, call); err != nil {
			return nil, fmt.Errorf("payments: preparing %q (is %s installed?): %w", call, procName, err)
		}
	}
	return k, nil
}

// WorkerBase is what a worker keeps on every engine family: its random
// source, the token hashes, the current transfer's input and when to
// delete. The implementation for MongoDB (workload/payments/mongo) embeds
// it as the SQL worker does. It is used by one goroutine.
type WorkerBase struct {
	w      *Payments
	q      *workload.Queries
	r      *rand.Rand
	hashes []string // token hash by user id

	transfers  int  // transfers this worker committed
	deleteNext bool // the next operation is the delete
	in         Transfer
}

// NewWorkerBase is the state of worker env.ID of w: its random source is
// seeded from env.Seed and its statements are counted in env.Queries.
func NewWorkerBase(w *Payments, env workload.WorkerEnv) WorkerBase {
	b := WorkerBase{w: w, q: env.Queries, r: rand.New(rand.NewPCG(env.Seed, 0x7a7))}
	b.hashes = make([]string, w.opts.users+1)
	for u := 1; u <= w.opts.users; u++ {
		b.hashes[u] = w.tokenHash(int64(u))
	}
	return b
}

// Queries is where the worker counts its statements.
func (b *WorkerBase) Queries() *workload.Queries { return b.q }

// Rand is the worker's random source.
func (b *WorkerBase) Rand() *rand.Rand { return b.r }

// TokenHash is the hash of user's transfer token (tokens' key).
func (b *WorkerBase) TokenHash(user int64) string { return b.hashes[user] }

// Input is the current transfer's input, drawn by Pick.
func (b *WorkerBase) Input() Transfer { return b.in }

// TakeDelete reports whether the next operation is the delete (every
// 20th after a committed transfer, under --deletes) and, if so, clears
// it.
func (b *WorkerBase) TakeDelete() bool {
	if !b.deleteNext {
		return false
	}
	b.deleteNext = false
	return true
}

// Pick draws the next transfer's input: a card (its account pays), another
// account, the acquiring user, an issuing user of the card account's
// organization and an amount from 0.01 to 100.00.
func (b *WorkerBase) Pick() {
	o := b.w.opts
	card := 1 + b.r.Int64N(int64(o.accounts))
	to := 1 + b.r.Int64N(int64(o.accounts-1))
	if to >= card {
		to++
	}
	// The issuing user belongs to the card account's organization: users
	// are dealt round robin, so pick one of that organization's.
	org := b.w.orgOf(card)
	perOrg := (int64(o.users) - org) / int64(o.organizations)
	issuer := org + b.r.Int64N(perOrg+1)*int64(o.organizations)
	b.in = Transfer{Card: card, To: to, Acquirer: 1 + b.r.Int64N(int64(o.users)), Issuer: issuer,
		Amount: float64(1+b.r.IntN(10000)) / 100, Code: b.w.securityCode(card)}
}

// Done counts a committed transfer (err nil) and, under --deletes, makes
// every 20th one's next operation a delete. It returns err.
func (b *WorkerBase) Done(err error) error {
	if err == nil {
		b.transfers++
		if b.w.opts.deletes && b.transfers%20 == 0 {
			b.deleteNext = true
		}
	}
	return err
}

type worker struct {
	WorkerBase
	c engine.SQLConn

	acquirer, card, issuer, debit, credit, insert, maxID, findID, del engine.Stmt
	call                                                              engine.Stmt // --mode procedure
	b                                                                 engine.Batch
}

// Transfer is one transfer's input, kept for Replay: the card (its
// account pays), the account credited, the acquiring and the issuing
// user, the amount and the card's security code.
type Transfer struct {
	Card, To, Acquirer, Issuer int64
	Amount                     float64
	Code                       string
}

// ErrDeclined marks a transfer the checks refused: not enough money, a
// frozen account or card, an expired card. Nothing was written.
var ErrDeclined = fmt.Errorf("payments: transfer declined: %w", workload.ErrRollback)

// Next runs one transfer, or, after every 20th transfer under --deletes,
// one delete.
func (k *worker) Next(ctx context.Context) (int, error) {
	if k.TakeDelete() {
		return OpDelete, k.deleteOne(ctx)
	}
	k.Pick()
	return k.Replay(ctx)
}

// Replay runs the current transfer again (after a deadlock).
func (k *worker) Replay(ctx context.Context) (int, error) {
	return OpTransfer, k.Done(k.transfer(ctx))
}

func (k *worker) transfer(ctx context.Context) error {
	in := k.in
	now := time.Now().UTC().Truncate(time.Microsecond)
	q := k.q

	// 1. The acquiring user and the token's permission.
	var user, userOrg int64
	var perm string
	var expires time.Time
	q.Reads++
	if err := k.acquirer.QueryRow(ctx, []any{k.hashes[in.Acquirer]}, &user, &userOrg, &perm, &expires); err != nil {
		return missing(err, "token of user", in.Acquirer)
	}
	if perm != "transfer" || !expires.After(now) {
		return fmt.Errorf("payments: user %d's token does not allow transfers (permission %q, expires %s)", in.Acquirer, perm, expires.Format(time.RFC3339))
	}

	// 2. The issuing account and card, checked here.
	var account, expiry, accountOrg int64
	var code string
	var cardFrozen, accountFrozen bool
	var balance float64
	q.Reads++
	if err := k.card.QueryRow(ctx, []any{in.Card}, &account, &expiry, &code, &cardFrozen, &balance, &accountFrozen, &accountOrg); err != nil {
		return missing(err, "card", in.Card)
	}
	if code != in.Code {
		return fmt.Errorf("payments: card %d: security code mismatch (the data was prepared with another --seed-data?)", in.Card)
	}
	if cardFrozen || accountFrozen || expiry < int64(now.Year()*100+int(now.Month())) || balance < in.Amount {
		return ErrDeclined
	}

	// 3. The issuing user, who must belong to the account's organization.
	var issuer, issuerOrg int64
	q.Reads++
	if err := k.issuer.QueryRow(ctx, []any{k.hashes[in.Issuer]}, &issuer, &issuerOrg); err != nil {
		return missing(err, "token of user", in.Issuer)
	}
	if issuerOrg != accountOrg {
		return fmt.Errorf("payments: user %d (organization %d) may not spend from account %d (organization %d)", issuer, issuerOrg, account, accountOrg)
	}

	// 4. Debit, credit and the transfer row in one transaction; the
	// debit only if the money is still there.
	if k.call != nil {
		var status int64
		q.Other++
		if err := k.call.QueryRow(ctx, []any{in.Card, account, in.To, user, in.Amount, k.w.opts.lockOrder, now}, &status); err != nil {
			return err
		}
		if status != 1 {
			return ErrDeclined
		}
		return nil
	}
	b := &k.b
	b.Reset()
	b.Begin()
	var debited int
	if k.w.opts.lockOrder && in.To < account {
		b.Exec(k.credit, in.Amount, in.To)
		debited = b.Exec(k.debit, in.Amount, account, in.Amount)
	} else {
		debited = b.Exec(k.debit, in.Amount, account, in.Amount)
		b.Exec(k.credit, in.Amount, in.To)
	}
	b.Exec(k.insert, in.Card, account, in.To, user, in.Amount, now)
	q.Other++
	q.Writes += 3
	if err := b.Send(ctx, k.c); err != nil {
		return k.rollback(ctx, err)
	}
	if b.RowsAffected(debited) != 1 {
		return k.rollback(ctx, ErrDeclined) // spent by a concurrent transfer
	}
	q.Other++
	if err := k.c.Commit(ctx); err != nil {
		return k.rollback(ctx, err)
	}
	return nil
}

func (k *worker) rollback(ctx context.Context, err error) error {
	k.q.Other++
	_ = k.c.Rollback(context.WithoutCancel(ctx)) // err is what counts
	return err
}

// deleteOne deletes the first transfer at or after a random id.
func (k *worker) deleteOne(ctx context.Context) error {
	var hi, id int64
	k.q.Reads++
	if err := k.maxID.QueryRow(ctx, nil, &hi); err != nil {
		return err
	}
	if hi == 0 {
		return nil
	}
	k.q.Reads++
	err := k.findID.QueryRow(ctx, []any{1 + k.r.Int64N(hi)}, &id)
	if errors.Is(err, engine.ErrNoRows) {
		return nil // deleted by another worker since
	}
	if err != nil {
		return err
	}
	k.q.Writes++
	_, err = k.del.Exec(ctx, id)
	return err
}

func missing(err error, what string, id int64) error {
	if errors.Is(err, engine.ErrNoRows) {
		return fmt.Errorf("payments: no %s %d: is the database prepared with these options?", what, id)
	}
	return err
}

// Metrics are transfers and deletes per minute (the study's chart), per
// interval and for the run, on every engine family: the figures
// Spec.Metrics names. A span of no length has none.
func Metrics(s workload.Span) []result.Metric {
	mins := s.Length.Minutes()
	if mins <= 0 {
		return nil
	}
	t, d := s.Ops[OpTransfer], s.Ops[OpDelete]
	return []result.Metric{
		{Name: "transfers/min", Value: float64(t.Count-t.Rollbacks) / mins, Unit: "/min", Higher: true},
		{Name: "deletes/min", Value: float64(d.Count) / mins, Unit: "/min", Higher: true},
		{Name: "declined/min", Value: float64(t.Rollbacks) / mins, Unit: "/min"},
	}
}
