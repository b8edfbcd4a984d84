package mongo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
)

// shardDoc is an engine.ShardRecord in its collection; _id is the key
// (run, phase, shard), so that the unique _id refuses a second record.
type shardDoc struct {
	ID      shardKey `bson:"_id"`
	Count   int      `bson:"shards"`
	Written int64    `bson:"written_us"` // microseconds since the epoch, as in SQL
	Body    string   `bson:"body"`
}

type shardKey struct {
	Run   string `bson:"run_id"`
	Phase string `bson:"phase"`
	Shard int    `bson:"shard"`
}

func (k catalog) shards(table string) (*mongo.Collection, error) {
	if table != engine.ShardTable && table != engine.ResultTable {
		return nil, fmt.Errorf("%w: %s", engine.ErrShardTable, table)
	}
	return k.c.db.Collection(table), nil
}

func docOf(rec engine.ShardRecord) shardDoc {
	return shardDoc{ID: shardKey{rec.Run, rec.Phase, rec.Shard}, Count: rec.Count, Written: rec.At.UnixMicro(), Body: rec.Body}
}

// AddShardRecord implements engine.Catalog: an insert, which the unique
// _id refuses when the record is there.
func (k catalog) AddShardRecord(ctx context.Context, table string, rec engine.ShardRecord) (bool, error) {
	coll, err := k.shards(table)
	if err != nil {
		return false, err
	}
	_, err = coll.InsertOne(ctx, docOf(rec))
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("recording shard %d of run %s in %s: %w", rec.Shard, rec.Run, table, err)
	}
	return true, nil
}

// PutShardRecord implements engine.Catalog: a replace by _id.
func (k catalog) PutShardRecord(ctx context.Context, table string, rec engine.ShardRecord) error {
	coll, err := k.shards(table)
	if err != nil {
		return err
	}
	d := docOf(rec)
	if _, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: d.ID}}, d, options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("recording shard %d of run %s in %s: %w", rec.Shard, rec.Run, table, err)
	}
	return nil
}

// ShardRecords implements engine.Catalog.
func (k catalog) ShardRecords(ctx context.Context, table, run, phase string) ([]engine.ShardRecord, error) {
	coll, err := k.shards(table)
	if err != nil {
		return nil, err
	}
	filter := bson.D{}
	if run != "" {
		filter = append(filter, bson.E{Key: "_id.run_id", Value: run})
	}
	if phase != "" {
		filter = append(filter, bson.E{Key: "_id.phase", Value: phase})
	}
	cur, err := coll.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "_id.run_id", Value: 1}, {Key: "_id.phase", Value: 1}, {Key: "_id.shard", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	var docs []shardDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	out := make([]engine.ShardRecord, len(docs))
	for i, d := range docs {
		out[i] = engine.ShardRecord{Run: d.ID.Run, Phase: d.ID.Phase, Shard: d.ID.Shard, Count: d.Count, At: time.UnixMicro(d.Written), Body: d.Body}
	}
	return out, nil
}

// DeleteShardRecords implements engine.Catalog.
func (k catalog) DeleteShardRecords(ctx context.Context, table, run string) (int, error) {
	coll, err := k.shards(table)
	if err != nil {
		return 0, err
	}
	filter := bson.D{}
	if run != "" {
		filter = bson.D{{Key: "_id.run_id", Value: run}}
	}
	res, err := coll.DeleteMany(ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("deleting from %s: %w", table, err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || n > 0 {
		return int(res.DeletedCount), err
	}
	return int(res.DeletedCount), coll.Drop(ctx)
}

// ServerTime implements engine.Catalog from hello's localTime (whole
// milliseconds).
func (k catalog) ServerTime(ctx context.Context) (time.Time, error) {
	raw, err := k.c.db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Raw()
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the server's clock: %w", err)
	}
	lt, ok := raw.Lookup("localTime").DateTimeOK()
	if !ok {
		return time.Time{}, errors.New("reading the server's clock: hello has no localTime")
	}
	return time.UnixMilli(lt), nil
}
