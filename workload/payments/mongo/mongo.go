package mongo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/payments"
)

func init() {
	workload.RegisterFamily("payments", engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		return &Payments{base: base.(*payments.Payments)}
	})
}

// Payments is a workload, and its workers replay a transfer.
var (
	_ workload.Workload = (*Payments)(nil)
	_ workload.Replayer = (*mongoWorker)(nil)
)

// Payments is the payments workload's implementation for MongoDB, built
// on the registered workload whose options it reads.
type Payments struct {
	base *payments.Payments
}

// Define is the registered workload's Spec (its options, tables, ops,
// figures and run defaults) with MongoDB's own check and nothing to
// install: MongoDB has no stored procedures, and the workers refuse
// --mode procedure.
func (w *Payments) Define() workload.Spec {
	s := w.base.Define()
	s.Install, s.Uninstall = nil, nil
	s.Check = w.check
	return s
}

// Open starts a run on MongoDB: its workers share nothing, and its
// figures are transfers and deletes per minute, as on SQL engines.
func (w *Payments) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{
		NewWorker: func(_ context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
			mc, err := mongo.ConnOf(conn)
			if err != nil {
				return nil, err
			}
			return w.newMongoWorker(mc, env)
		},
		Metrics: payments.Metrics,
	}, nil
}

// check verifies the invariants the registered workload checks on SQL
// engines (mongoCheck).
func (w *Payments) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	mc, err := mongo.ConnOf(conn)
	if err != nil {
		return nil, err
	}
	return w.mongoCheck(ctx, mc)
}

// cents is amount in cents, rounded.
func cents(amount float64) int64 { return int64(math.Round(amount * 100)) }

// decimalCents is c cents as the Decimal128 c × 10⁻², the value and
// scale DECIMAL(14,2) would hold: the coefficient in the low word and
// the biased exponent (6176 − 2) in bits 49–62 of the high one (IEEE
// 754-2008 BID encoding, as BSON stores it).
func decimalCents(c int64) bson.Decimal128 {
	h := uint64(6176-2) << 49
	if c < 0 {
		h |= 1 << 63
		c = -c
	}
	return bson.NewDecimal128(h, uint64(c))
}

// errNoProcedure refuses --mode procedure on MongoDB.
var errNoProcedure = &workload.OptionError{Flag: "mode", Value: payments.ModeProcedure, Err: "mongodb has no stored procedures (use --mode client)"}

// mongoWorker runs the transfer and the delete as MongoDB operations,
// round trip for round trip with the SQL worker: steps 1 to 3 are one
// aggregation each, step 4 a transaction on the connection's session.
//
//	acquiring user  tokens: $match {_id: hash}, $lookup users, $lookup permissions
//	card, account   cards: $match {_id: card}, $lookup accounts; checked here
//	issuing user    tokens: $match {_id: hash}, $lookup users
//	debit           accounts.updateOne({_id: from, balance: {$gte: amount}}, {$inc: {balance: -amount}})
//	credit          accounts.updateOne({_id: to}, {$inc: {balance: amount}})
//	transfer        transfers.insertOne({_id: ObjectId(), …}), then commitTransaction
//
// A debit that matches no document (the money went to a concurrent
// transfer since step 2) aborts the transaction: declined, as the SQL
// UPDATE … AND balance >= ? that changes no row. Write conflicts
// (TransientTransactionError) abort it too; the runner replays it with the
// same input after the back-off, as deadlocks on the SQL engines.
//
// Statements are counted as on SQL: the three lookups and the delete's
// two finds as reads, updates, inserts and deletes as writes, starting,
// committing and aborting a transaction as other.
type mongoWorker struct {
	payments.WorkerBase
	lockOrder                   bool // --lock-order
	mc                          *mongo.Conn
	tokens, cards, accts, xfers *drv.Collection

	acquirer, issuer drv.Pipeline // $lookups after the $match stage
	card             drv.Pipeline // likewise
	maxOpts, minOpts *mopts.FindOneOptionsBuilder
	lo               bson.ObjectID // the smallest transfer _id seen, the deletes' lower bound
}

// newMongoWorker builds a worker on mc. --mode procedure is refused.
func (w *Payments) newMongoWorker(mc *mongo.Conn, env workload.WorkerEnv) (*mongoWorker, error) {
	if errs := w.base.Define().Validate(); len(errs) > 0 {
		return nil, errs[0]
	}
	if w.base.Mode() == payments.ModeProcedure {
		return nil, errNoProcedure
	}
	db := mc.DB()
	k := &mongoWorker{WorkerBase: payments.NewWorkerBase(w.base, env), lockOrder: w.base.LockOrder(), mc: mc,
		tokens: db.Collection("tokens"), cards: db.Collection("cards"), accts: db.Collection("accounts"), xfers: db.Collection("transfers")}
	lookup := func(from, local, as string) bson.D {
		return bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: from}, {Key: "localField", Value: local}, {Key: "foreignField", Value: "_id"}, {Key: "as", Value: as}}}}
	}
	unwind := func(f string) bson.D { return bson.D{{Key: "$unwind", Value: "$" + f}} }
	project := func(fields ...string) bson.D {
		p := bson.D{{Key: "_id", Value: 0}}
		for i := 0; i < len(fields); i += 2 {
			p = append(p, bson.E{Key: fields[i], Value: fields[i+1]})
		}
		return bson.D{{Key: "$project", Value: p}}
	}
	// The joins are inner joins, as the SQL ones: $unwind drops a token
	// whose user or permission is missing.
	k.acquirer = drv.Pipeline{lookup("users", "user_id", "u"), unwind("u"), lookup("permissions", "permission_id", "p"), unwind("p"),
		project("user", "$u._id", "org", "$u.organization_id", "perm", "$p.name", "expires", "$expires_at")}
	k.card = drv.Pipeline{lookup("accounts", "account_id", "a"), unwind("a"),
		project("account", "$account_id", "expiry", "$expiry", "code", "$security_code", "frozen", "$frozen",
			"balance", "$a.balance", "accountFrozen", "$a.frozen", "org", "$a.organization_id")}
	k.issuer = drv.Pipeline{lookup("users", "user_id", "u"), unwind("u"), project("user", "$u._id", "org", "$u.organization_id")}
	idOnly := bson.D{{Key: "_id", Value: 1}}
	k.maxOpts = mopts.FindOne().SetSort(bson.D{{Key: "_id", Value: -1}}).SetProjection(idOnly)
	k.minOpts = mopts.FindOne().SetSort(bson.D{{Key: "_id", Value: 1}}).SetProjection(idOnly)
	return k, nil
}

// Next runs one transfer, or, after every 20th transfer under --deletes,
// one delete.
func (k *mongoWorker) Next(ctx context.Context) (int, error) {
	if k.TakeDelete() {
		return payments.OpDelete, k.deleteOne(ctx)
	}
	k.Pick()
	return k.Replay(ctx)
}

// Replay runs the current transfer again (after a write conflict).
func (k *mongoWorker) Replay(ctx context.Context) (int, error) {
	return payments.OpTransfer, k.Done(k.transfer(ctx))
}

// first runs pipeline on coll after {$match: {_id: id}} and decodes the
// one document it returns into dst; it reports false when there is none.
func first(ctx context.Context, coll *drv.Collection, id any, pipeline drv.Pipeline, dst any) (bool, error) {
	p := make(drv.Pipeline, 0, len(pipeline)+1)
	p = append(p, bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: id}}}})
	cur, err := coll.Aggregate(ctx, append(p, pipeline...))
	if err != nil {
		return false, err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	if !cur.Next(ctx) {
		return false, cur.Err()
	}
	return true, cur.Decode(dst)
}

func (k *mongoWorker) transfer(ctx context.Context) error {
	in := k.Input()
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := k.Queries()
	sctx := k.mc.Ctx(ctx)

	// 1. The acquiring user and the token's permission.
	var acq struct {
		User    int64     `bson:"user"`
		Org     int64     `bson:"org"`
		Perm    string    `bson:"perm"`
		Expires time.Time `bson:"expires"`
	}
	q.Reads++
	if ok, err := first(sctx, k.tokens, k.TokenHash(in.Acquirer), k.acquirer, &acq); err != nil || !ok {
		return mongoMissing(err, "token of user", in.Acquirer)
	}
	if acq.Perm != "transfer" || !acq.Expires.After(now) {
		return fmt.Errorf("payments: user %d's token does not allow transfers (permission %q, expires %s)", in.Acquirer, acq.Perm, acq.Expires.Format(time.RFC3339))
	}

	// 2. The issuing account and card, checked here.
	var card struct {
		Account       int64           `bson:"account"`
		Expiry        int64           `bson:"expiry"`
		Code          string          `bson:"code"`
		Frozen        bool            `bson:"frozen"`
		Balance       bson.Decimal128 `bson:"balance"`
		AccountFrozen bool            `bson:"accountFrozen"`
		Org           int64           `bson:"org"`
	}
	q.Reads++
	if ok, err := first(sctx, k.cards, in.Card, k.card, &card); err != nil || !ok {
		return mongoMissing(err, "card", in.Card)
	}
	if card.Code != in.Code {
		return fmt.Errorf("payments: card %d: security code mismatch (the data was prepared with another --seed-data?)", in.Card)
	}
	balance, err := decimalFloat(card.Balance)
	if err != nil {
		return fmt.Errorf("payments: account %d: %w", card.Account, err)
	}
	if card.Frozen || card.AccountFrozen || card.Expiry < int64(now.Year()*100+int(now.Month())) || balance < in.Amount {
		return payments.ErrDeclined
	}

	// 3. The issuing user, who must belong to the account's organization.
	var iss struct {
		User int64 `bson:"user"`
		Org  int64 `bson:"org"`
	}
	q.Reads++
	if ok, err := first(sctx, k.tokens, k.TokenHash(in.Issuer), k.issuer, &iss); err != nil || !ok {
		return mongoMissing(err, "token of user", in.Issuer)
	}
	if iss.Org != card.Org {
		return fmt.Errorf("payments: user %d (organization %d) may not spend from account %d (organization %d)", iss.User, iss.Org, card.Account, card.Org)
	}

	// 4. Debit, credit and the transfer document in one transaction; the
	// debit only if the money is still there.
	c := cents(in.Amount)
	amount := decimalCents(c)
	if err := k.mc.Session().StartTransaction(); err != nil {
		return err
	}
	q.Other++
	if k.lockOrder && in.To < card.Account {
		if err := k.credit(sctx, in.To, amount); err != nil {
			return k.abort(sctx, err)
		}
		if err := k.debit(sctx, card.Account, amount, decimalCents(-c)); err != nil {
			return k.abort(sctx, err)
		}
	} else {
		if err := k.debit(sctx, card.Account, amount, decimalCents(-c)); err != nil {
			return k.abort(sctx, err)
		}
		if err := k.credit(sctx, in.To, amount); err != nil {
			return k.abort(sctx, err)
		}
	}
	q.Writes++
	if _, err := k.xfers.InsertOne(sctx, bson.D{
		{Key: "_id", Value: bson.NewObjectID()},
		{Key: "card_id", Value: in.Card},
		{Key: "from_account", Value: card.Account},
		{Key: "to_account", Value: in.To},
		{Key: "user_id", Value: acq.User},
		{Key: "amount", Value: amount},
		{Key: "created_at", Value: bson.NewDateTimeFromTime(now)},
	}); err != nil {
		return k.abort(sctx, err)
	}
	q.Other++
	if err := k.mc.Commit(sctx); err != nil {
		return k.abort(sctx, err)
	}
	return nil
}

// debit takes amount (neg is −amount) from account if its balance holds
// it; a debit that matches nothing is payments.ErrDeclined.
func (k *mongoWorker) debit(ctx context.Context, account int64, amount, neg bson.Decimal128) error {
	k.Queries().Writes++
	res, err := k.accts.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: account}, {Key: "balance", Value: bson.D{{Key: "$gte", Value: amount}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: neg}}}})
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 {
		return payments.ErrDeclined // spent by a concurrent transfer
	}
	return nil
}

func (k *mongoWorker) credit(ctx context.Context, account int64, amount bson.Decimal128) error {
	k.Queries().Writes++
	res, err := k.accts.UpdateOne(ctx, bson.D{{Key: "_id", Value: account}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: amount}}}})
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 {
		return fmt.Errorf("payments: no account %d: is the database prepared with these options?", account)
	}
	return nil
}

// abort aborts the open transaction (counted when the abort is sent) and
// returns err.
func (k *mongoWorker) abort(ctx context.Context, err error) error {
	if k.mc.Session().TransactionRunning() {
		k.Queries().Other++
	}
	k.mc.Abort(ctx)
	return err
}

// deleteOne deletes the first transfer at or after a random _id, as the
// SQL worker does: the largest _id, then the first _id at or above a point
// drawn uniformly between the smallest _id this worker has seen and that
// one (ObjectIds taken as 96-bit numbers; SQL draws between 1 and MAX(id)),
// then the delete. The smallest _id is read once per worker, on its first
// delete (one more read, that time only): ids only grow, so it stays a
// lower bound as SQL's 1 does.
func (k *mongoWorker) deleteOne(ctx context.Context) error {
	sctx := k.mc.Ctx(ctx)
	var doc struct {
		ID bson.ObjectID `bson:"_id"`
	}
	found := func(err error) (bool, error) {
		if errors.Is(err, drv.ErrNoDocuments) {
			return false, nil
		}
		return err == nil, err
	}
	k.Queries().Reads++
	if ok, err := found(k.xfers.FindOne(sctx, bson.D{}, k.maxOpts).Decode(&doc)); !ok {
		return err
	}
	hi := doc.ID
	if k.lo.IsZero() {
		k.Queries().Reads++
		if ok, err := found(k.xfers.FindOne(sctx, bson.D{}, k.minOpts).Decode(&doc)); !ok {
			return err
		}
		k.lo = doc.ID
	}
	if objectIDLess(hi, k.lo) {
		k.lo = hi
	}
	from := between(k.Rand().Uint64, k.lo, hi)
	k.Queries().Reads++
	if ok, err := found(k.xfers.FindOne(sctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: from}}}}, k.minOpts).Decode(&doc)); !ok {
		return err // nil when deleted by another worker since
	}
	k.Queries().Writes++
	_, err := k.xfers.DeleteOne(sctx, bson.D{{Key: "_id", Value: doc.ID}})
	return err
}

// objectIDLess orders ObjectIDs as the server does (bytewise).
func objectIDLess(a, b bson.ObjectID) bool { return bytes.Compare(a[:], b[:]) < 0 }

// between draws an ObjectID uniformly between lo and hi (inclusive, as
// 96-bit numbers, lo ≤ hi) with rnd, a source of uniform 64-bit numbers.
func between(rnd func() uint64, lo, hi bson.ObjectID) bson.ObjectID {
	l, h := new(big.Int).SetBytes(lo[:]), new(big.Int).SetBytes(hi[:])
	span := new(big.Int).Sub(h, l)
	span.Add(span, big.NewInt(1)) // values to choose from, ≤ 2^96
	// Uniform below span: 128 random bits modulo span (bias < 2^-32).
	r := new(big.Int).SetUint64(rnd())
	r.Lsh(r, 64).Or(r, new(big.Int).SetUint64(rnd()))
	r.Mod(r, span).Add(r, l)
	var out bson.ObjectID
	r.FillBytes(out[:])
	return out
}

// decimalFloat is d as a float64, as the SQL drivers scan DECIMAL into
// the SQL worker's float64.
func decimalFloat(d bson.Decimal128) (float64, error) {
	r, ok := new(big.Rat).SetString(d.String())
	if !ok {
		return 0, fmt.Errorf("balance %s is not a number", d)
	}
	f, _ := r.Float64()
	return f, nil
}

func mongoMissing(err error, what string, id int64) error {
	if err == nil {
		return fmt.Errorf("payments: no %s %d: is the database prepared with these options?", what, id)
	}
	return err
}

// mongoCheck verifies what the checks on SQL verify, with one aggregation
// each: the number of accounts and the sum of their balances (exact, in
// Decimal128), no negative balance (and, since a collection has no column
// types, every balance a Decimal128), and no transfer whose from_account
// or to_account names a missing account ($lookup on _id).
func (w *Payments) mongoCheck(ctx context.Context, mc *mongo.Conn) ([]workload.Problem, error) {
	var probs []workload.Problem
	db := mc.DB()
	countIf := func(cond any) bson.D {
		return bson.D{{Key: "$sum", Value: bson.D{{Key: "$cond", Value: bson.A{cond, 1, 0}}}}}
	}
	cur, err := db.Collection("accounts").Aggregate(ctx, drv.Pipeline{{{Key: "$group", Value: bson.D{
		{Key: "_id", Value: nil},
		{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}},
		{Key: "total", Value: bson.D{{Key: "$sum", Value: "$balance"}}},
		{Key: "negative", Value: countIf(bson.D{{Key: "$and", Value: bson.A{
			bson.D{{Key: "$isNumber", Value: "$balance"}},
			bson.D{{Key: "$lt", Value: bson.A{"$balance", 0}}},
		}}})},
		{Key: "notDecimal", Value: countIf(bson.D{{Key: "$ne", Value: bson.A{bson.D{{Key: "$type", Value: "$balance"}}, "decimal"}}})},
	}}}})
	if err != nil {
		return nil, fmt.Errorf("payments: accounts: %w", err)
	}
	var acc []struct {
		N          int64         `bson:"n"`
		Total      bson.RawValue `bson:"total"`
		Negative   int64         `bson:"negative"`
		NotDecimal int64         `bson:"notDecimal"`
	}
	if err := cur.All(ctx, &acc); err != nil {
		return nil, fmt.Errorf("payments: accounts: %w", err)
	}
	n, sum := int64(0), new(big.Rat)
	if len(acc) == 1 {
		n = acc[0].N
		if sum, err = ratOf(acc[0].Total); err != nil {
			return nil, fmt.Errorf("payments: sum of the balances: %w", err)
		}
	}
	if n != int64(w.base.Accounts()) {
		probs = append(probs, workload.Problem{Check: "accounts", Detail: fmt.Sprintf("%d accounts, want --accounts %d", n, w.base.Accounts())})
	}
	want := new(big.Rat).SetFrac64(int64(w.base.Accounts())*cents(w.base.InitialBalance()), 100)
	if sum.Cmp(want) != 0 {
		probs = append(probs, workload.Problem{Check: "total balance", Detail: fmt.Sprintf("the balances sum to %s, want %s (%d × %.2f)",
			sum.FloatString(2), want.FloatString(2), w.base.Accounts(), w.base.InitialBalance())})
	}
	if len(acc) == 1 && acc[0].Negative > 0 {
		probs = append(probs, workload.Problem{Check: "no negative balance", Detail: fmt.Sprintf("%d accounts below zero", acc[0].Negative)})
	}
	if len(acc) == 1 && acc[0].NotDecimal > 0 {
		probs = append(probs, workload.Problem{Check: "balance type", Detail: fmt.Sprintf("%d accounts whose balance is not a Decimal128", acc[0].NotDecimal)})
	}

	exists := func(field, as string) bson.D {
		return bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "accounts"}, {Key: "localField", Value: field}, {Key: "foreignField", Value: "_id"},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}}}}, {Key: "as", Value: as}}}}
	}
	cur, err = db.Collection("transfers").Aggregate(ctx, drv.Pipeline{
		{{Key: "$project", Value: bson.D{{Key: "from_account", Value: 1}, {Key: "to_account", Value: 1}}}},
		exists("from_account", "f"),
		exists("to_account", "t"),
		{{Key: "$match", Value: bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "f", Value: bson.D{{Key: "$size", Value: 0}}}}, bson.D{{Key: "t", Value: bson.D{{Key: "$size", Value: 0}}}}}}}}},
		{{Key: "$count", Value: "n"}},
	})
	if err != nil {
		return probs, fmt.Errorf("payments: transfers: %w", err)
	}
	var dangling []struct {
		N int64 `bson:"n"`
	}
	if err := cur.All(ctx, &dangling); err != nil {
		return probs, fmt.Errorf("payments: transfers: %w", err)
	}
	if len(dangling) == 1 && dangling[0].N > 0 {
		probs = append(probs, workload.Problem{Check: "transfers reference accounts", Detail: fmt.Sprintf("%d transfers name an account that does not exist", dangling[0].N)})
	}
	return probs, nil
}

// ratOf is a numeric BSON value (Decimal128, double, int32, int64) as an
// exact rational.
func ratOf(v bson.RawValue) (*big.Rat, error) {
	switch v.Type {
	case bson.TypeDecimal128:
		d := v.Decimal128()
		r, ok := new(big.Rat).SetString(d.String())
		if !ok {
			return nil, fmt.Errorf("%s is not a number", d)
		}
		return r, nil
	case bson.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%v is not a number", f)
		}
		return new(big.Rat).SetFloat64(f), nil
	case bson.TypeInt32:
		return new(big.Rat).SetInt64(int64(v.Int32())), nil
	case bson.TypeInt64:
		return new(big.Rat).SetInt64(v.Int64()), nil
	}
	return nil, fmt.Errorf("a %s, not a number", v.Type)
}
