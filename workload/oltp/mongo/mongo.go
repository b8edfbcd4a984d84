package mongo

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/oltp"
)

func init() {
	for _, name := range oltp.Names() {
		workload.RegisterFamily(name, engine.FamilyMongo, func(base workload.Workload) workload.Workload {
			return &Test{of: base.(*oltp.Test)}
		})
	}
}

var _ workload.Workload = (*Test)(nil)

// Test is a sysbench test's implementation for MongoDB, built on the
// registered workload whose options it reads; workload.ForFamily builds
// it for MongoDB targets.
type Test struct {
	of *oltp.Test
}

// Define is the registered test's Spec (its options, tables, ops, the
// validation and the retried error classes) with the check of the
// collections in place of the tables'.
func (w *Test) Define() workload.Spec {
	s := w.of.Define()
	s.Check = w.check
	return s
}

// Open starts a run: as on SQL engines, the workers share nothing but
// the options.
func (w *Test) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: w.newWorker}, nil
}

// newWorker returns a worker running the test's events on c, a MongoDB
// connection, with its own random source seeded from env.Seed.
func (w *Test) newWorker(_ context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	if err := w.of.CheckOptions(); err != nil {
		return nil, err
	}
	mc, err := mongo.ConnOf(conn)
	if err != nil {
		return nil, err
	}
	return newMongoWorker(w.of, mc, env)
}

// check verifies on every collection what the SQL implementation's
// check verifies on a table (mongoCheck).
func (w *Test) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	if err := w.of.CheckOptions(); err != nil {
		return nil, err
	}
	mc, err := mongo.ConnOf(conn)
	if err != nil {
		return nil, err
	}
	return w.mongoCheck(ctx, mc)
}

// mongoTable is one collection's handles and the options of the
// operations run on it.
type mongoTable struct {
	coll *drv.Collection
}

// mongoWorker runs the sysbench events as MongoDB operations, statement
// for statement:
//
//	point select        findOne({_id}) projecting c
//	simple range        find({_id: {$gte, $lte}}) projecting c
//	sum range           aggregate [$match _id range, $group $sum k]
//	order range         find(_id range) sorted by c, projecting c
//	distinct range      aggregate [$match _id range, $group by c, $sort]
//	index update        updateOne({_id}, {$inc: {k: 1}})
//	non-index update    updateOne({_id}, {$set: {c}})
//	delete / insert     deleteOne({_id}) / insertOne({_id, k, c, pad})
//
// BEGIN … COMMIT becomes a transaction on the connection's session, and
// the statement counts (reads, writes, other) are sysbench's, so that a
// comparison lines MongoDB up against the SQL engines query for query.
type mongoWorker struct {
	*oltp.Events                   // random source, options, counts and id generation
	q            *workload.Queries // Events.Queries
	trx          bool              // Events.Trx
	mc           *mongo.Conn
	colls        []mongoTable

	// ranges are the four range groups in sysbench's order, built once:
	// method values made per event would allocate.
	ranges [4]rangeGroup

	findOneOpts *mopts.FindOneOptionsBuilder
	rangeOpts   *mopts.FindOptionsBuilder
	orderOpts   *mopts.FindOptionsBuilder
}

// rangeGroup is one kind of range select and how many an event runs.
type rangeGroup struct {
	count int
	run   func(context.Context, *drv.Collection, int64, int64) error
}

func newMongoWorker(w *oltp.Test, mc *mongo.Conn, env workload.WorkerEnv) (*mongoWorker, error) {
	ev, err := oltp.NewEvents(w, env)
	if err != nil {
		return nil, err
	}
	mw := &mongoWorker{Events: ev, q: ev.Queries(), trx: ev.Trx(), mc: mc, colls: make([]mongoTable, w.TableCount())}
	for i := range mw.colls {
		mw.colls[i].coll = mc.DB().Collection(oltp.TableName(i + 1))
	}
	n := mw.Counts()
	mw.ranges = [4]rangeGroup{{n.Simple, mw.simpleRange}, {n.Sum, mw.sumRange}, {n.Order, mw.orderRange}, {n.Distinct, mw.distinctRange}}
	proj := bson.D{{Key: "c", Value: 1}, {Key: "_id", Value: 0}}
	mw.findOneOpts = mopts.FindOne().SetProjection(proj)
	mw.rangeOpts = mopts.Find().SetProjection(proj)
	mw.orderOpts = mopts.Find().SetProjection(proj).SetSort(bson.D{{Key: "c", Value: 1}}).SetLimit(mw.RangeAdd() + 1)
	return mw, nil
}

// Next runs one event; see worker.Next. A failed event's transaction is
// aborted.
func (mw *mongoWorker) Next(ctx context.Context) (int, error) {
	op := mw.Op()
	sctx := mw.mc.Ctx(ctx)
	if mw.trx {
		if err := mw.mc.Session().StartTransaction(); err != nil {
			return op, err
		}
		mw.q.Other++
	}
	if err := mw.event(sctx, op); err != nil {
		if mw.trx {
			mw.mc.Abort(sctx)
			mw.q.Other++
		}
		return op, err
	}
	if mw.trx {
		if err := mw.mc.Commit(sctx); err != nil {
			mw.mc.Abort(sctx)
			return op, err
		}
		mw.q.Other++
	}
	return op, nil
}

func (mw *mongoWorker) coll() *drv.Collection {
	return mw.colls[mw.Table()].coll
}

func (mw *mongoWorker) event(ctx context.Context, op int) error {
	switch mw.Kind() {
	case oltp.EventInsert:
		return mw.insertEvent(ctx)
	case oltp.EventDelete:
		return mw.deleteOne(ctx, mw.coll(), int64(mw.ID()))
	case oltp.EventPct:
		c := mw.coll()
		if op == 0 {
			return mw.pointSelect(ctx, c, int64(mw.ID()))
		}
		return mw.incK(ctx, c, int64(mw.ID()))
	}
	n := mw.Counts()
	if n.Points > 0 {
		c := mw.coll()
		for i := 0; i < n.Points; i++ {
			if err := mw.pointSelect(ctx, c, int64(mw.ID())); err != nil {
				return err
			}
		}
	}
	for _, g := range mw.ranges {
		if g.count == 0 {
			continue
		}
		c := mw.coll()
		for i := 0; i < g.count; i++ {
			id := int64(mw.ID())
			if err := g.run(ctx, c, id, id+mw.RangeAdd()); err != nil {
				return err
			}
			mw.q.Reads++
		}
	}
	if n.IdxUpdates > 0 {
		c := mw.coll()
		for i := 0; i < n.IdxUpdates; i++ {
			if err := mw.incK(ctx, c, int64(mw.ID())); err != nil {
				return err
			}
		}
	}
	if n.NonIdx > 0 {
		c := mw.coll()
		for i := 0; i < n.NonIdx; i++ {
			if err := mw.setC(ctx, c, mw.CValue(), int64(mw.ID())); err != nil {
				return err
			}
		}
	}
	if n.DelIns > 0 {
		c := mw.coll()
		for i := 0; i < n.DelIns; i++ {
			id := int64(mw.ID())
			k := int64(mw.ID())
			if err := mw.deleteOne(ctx, c, id); err != nil {
				return err
			}
			cv, pad := mw.CPadValues()
			if err := mw.insertOne(ctx, c, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: k}, {Key: "c", Value: cv}, {Key: "pad", Value: pad}}); err != nil {
				return err
			}
		}
	}
	return nil
}

func idFilter(id int64) bson.D { return bson.D{{Key: "_id", Value: id}} }

func rangeFilter(lo, hi int64) bson.D {
	return bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: lo}, {Key: "$lte", Value: hi}}}}
}

// pointSelect reads one document's c without decoding it.
func (mw *mongoWorker) pointSelect(ctx context.Context, c *drv.Collection, id int64) error {
	res := c.FindOne(ctx, idFilter(id), mw.findOneOpts)
	if err := res.Err(); err != nil && !errors.Is(err, drv.ErrNoDocuments) {
		return err
	}
	mw.q.Reads++
	return nil
}

// drain reads every document of a cursor without decoding it.
func drain(ctx context.Context, cur *drv.Cursor, err error) error {
	if err != nil {
		return err
	}
	for cur.Next(ctx) {
	}
	err = cur.Err()
	if cerr := cur.Close(context.WithoutCancel(ctx)); err == nil {
		err = cerr
	}
	return err
}

func (mw *mongoWorker) simpleRange(ctx context.Context, c *drv.Collection, lo, hi int64) error {
	cur, err := c.Find(ctx, rangeFilter(lo, hi), mw.rangeOpts)
	return drain(ctx, cur, err)
}

func (mw *mongoWorker) orderRange(ctx context.Context, c *drv.Collection, lo, hi int64) error {
	cur, err := c.Find(ctx, rangeFilter(lo, hi), mw.orderOpts)
	return drain(ctx, cur, err)
}

func (mw *mongoWorker) sumRange(ctx context.Context, c *drv.Collection, lo, hi int64) error {
	cur, err := c.Aggregate(ctx, drv.Pipeline{
		{{Key: "$match", Value: rangeFilter(lo, hi)}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "s", Value: bson.D{{Key: "$sum", Value: "$k"}}}}}},
	})
	return drain(ctx, cur, err)
}

func (mw *mongoWorker) distinctRange(ctx context.Context, c *drv.Collection, lo, hi int64) error {
	cur, err := c.Aggregate(ctx, drv.Pipeline{
		{{Key: "$match", Value: rangeFilter(lo, hi)}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$c"}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	return drain(ctx, cur, err)
}

func (mw *mongoWorker) incK(ctx context.Context, c *drv.Collection, id int64) error {
	if _, err := c.UpdateOne(ctx, idFilter(id), bson.D{{Key: "$inc", Value: bson.D{{Key: "k", Value: int64(1)}}}}); err != nil {
		return err
	}
	mw.q.Writes++
	return nil
}

func (mw *mongoWorker) setC(ctx context.Context, c *drv.Collection, v string, id int64) error {
	if _, err := c.UpdateOne(ctx, idFilter(id), bson.D{{Key: "$set", Value: bson.D{{Key: "c", Value: v}}}}); err != nil {
		return err
	}
	mw.q.Writes++
	return nil
}

func (mw *mongoWorker) deleteOne(ctx context.Context, c *drv.Collection, id int64) error {
	if _, err := c.DeleteOne(ctx, idFilter(id)); err != nil {
		return err
	}
	mw.q.Writes++
	return nil
}

func (mw *mongoWorker) insertOne(ctx context.Context, c *drv.Collection, doc bson.D) error {
	if _, err := c.InsertOne(ctx, doc); err != nil {
		return err
	}
	mw.q.Writes++
	return nil
}

// insertEvent is oltp_insert's event. With --auto-inc the server assigns
// the _id (an ObjectId), as MongoDB does for a document without one;
// otherwise the id is client-generated as on the SQL engines.
func (mw *mongoWorker) insertEvent(ctx context.Context) error {
	c := mw.coll()
	k := int64(mw.ID())
	cv, pad := mw.CPadValues()
	if mw.AutoInc() {
		return mw.insertOne(ctx, c, bson.D{{Key: "k", Value: k}, {Key: "c", Value: cv}, {Key: "pad", Value: pad}})
	}
	return mw.insertOne(ctx, c, bson.D{{Key: "_id", Value: int64(mw.UniqueID())}, {Key: "k", Value: k}, {Key: "c", Value: cv}, {Key: "pad", Value: pad}})
}

// mongoCheck verifies on every collection what checkTable verifies on a
// table: fields present, c and pad lengths and template (on a sample),
// ids and k positive, and the row-count rule of the test.
func (w *Test) mongoCheck(ctx context.Context, mc *mongo.Conn) ([]workload.Problem, error) {
	var probs []workload.Problem
	for n := 1; n <= w.of.TableCount(); n++ {
		name := oltp.TableName(n)
		add := func(check, format string, args ...any) {
			probs = append(probs, workload.Problem{Check: check, Detail: name + ": " + fmt.Sprintf(format, args...)})
		}
		coll := mc.DB().Collection(name)
		if ok, err := mc.Catalog().TableExists(ctx, name); err != nil {
			return probs, err
		} else if !ok {
			add("table_exists", "no such collection")
			continue
		}
		strLen := func(f string) bson.D {
			return bson.D{{Key: "$strLenCP", Value: bson.D{{Key: "$ifNull", Value: bson.A{"$" + f, ""}}}}}
		}
		missing := func(f string) bson.D {
			return bson.D{{Key: "$eq", Value: bson.A{bson.D{{Key: "$type", Value: "$" + f}}, "missing"}}}
		}
		countIf := func(cond any) bson.D {
			return bson.D{{Key: "$sum", Value: bson.D{{Key: "$cond", Value: bson.A{cond, 1, 0}}}}}
		}
		numericID := bson.D{{Key: "$isNumber", Value: "$_id"}}
		cur, err := coll.Aggregate(ctx, drv.Pipeline{{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: nil},
			{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}},
			{Key: "minID", Value: bson.D{{Key: "$min", Value: bson.D{{Key: "$cond", Value: bson.A{numericID, "$_id", nil}}}}}},
			{Key: "maxID", Value: bson.D{{Key: "$max", Value: bson.D{{Key: "$cond", Value: bson.A{numericID, "$_id", nil}}}}}},
			{Key: "minK", Value: bson.D{{Key: "$min", Value: "$k"}}},
			{Key: "missing", Value: countIf(bson.D{{Key: "$or", Value: bson.A{missing("k"), missing("c"), missing("pad")}}})},
			{Key: "badC", Value: countIf(bson.D{{Key: "$ne", Value: bson.A{strLen("c"), oltp.CLen}}})},
			{Key: "badPad", Value: countIf(bson.D{{Key: "$ne", Value: bson.A{strLen("pad"), oltp.PadLen}}})},
		}}}})
		if err != nil {
			if ctx.Err() != nil {
				return probs, ctx.Err()
			}
			add("table_exists", "aggregation failed: %v", err)
			continue
		}
		var stats []struct {
			N       int64  `bson:"n"`
			MinID   *int64 `bson:"minID"`
			MaxID   *int64 `bson:"maxID"`
			MinK    *int64 `bson:"minK"`
			Missing int64  `bson:"missing"`
			BadC    int64  `bson:"badC"`
			BadPad  int64  `bson:"badPad"`
		}
		if err := cur.All(ctx, &stats); err != nil {
			return probs, fmt.Errorf("%s: %w", name, err)
		}
		var s = stats
		count := int64(0)
		var minID, maxID, minK *int64
		if len(s) == 1 {
			count, minID, maxID, minK = s[0].N, s[0].MinID, s[0].MaxID, s[0].MinK
			if s[0].Missing > 0 {
				add("not_null", "%d documents without k, c or pad", s[0].Missing)
			}
			if s[0].BadC > 0 {
				add("c_length", "%d documents whose c is not %d characters long", s[0].BadC, oltp.CLen)
			}
			if s[0].BadPad > 0 {
				add("pad_length", "%d documents whose pad is not %d characters long", s[0].BadPad, oltp.PadLen)
			}
		}
		// Template check on a sample: the documents with the smallest ids.
		const sample = 1000
		scur, err := coll.Find(ctx, rangeFilter(1, sample))
		if err != nil {
			return probs, fmt.Errorf("%s: %w", name, err)
		}
		var docs []struct {
			ID  any    `bson:"_id"`
			C   string `bson:"c"`
			Pad string `bson:"pad"`
		}
		if err := scur.All(ctx, &docs); err != nil {
			return probs, fmt.Errorf("%s: %w", name, err)
		}
		bad := 0
		var firstBad any
		for _, d := range docs {
			if !oltp.MatchesTemplate(d.C, oltp.CGroups) || !oltp.MatchesTemplate(d.Pad, oltp.PadGroups) {
				if bad == 0 {
					firstBad = d.ID
				}
				bad++
			}
		}
		if bad > 0 {
			add("c_pattern", "%d of the documents with _id <= %d have c or pad off the digit-group template (first: _id %v)", bad, sample, firstBad)
		}
		if minID != nil && *minID < 1 {
			add("id_range", "smallest _id is %d, want >= 1", *minID)
		}
		if minK != nil && *minK < 1 {
			add("k_positive", "smallest k is %d, want >= 1", *minK)
		}
		w.of.CheckCount(add, count, maxID)
	}
	return probs, nil
}
