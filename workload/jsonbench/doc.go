// Package jsonbench is the JSON analytics workload of ClickHouse's
// JSONBench: Bluesky firehose events (JSONBench loads 1 M, 10 M, 100 M
// and 1,000 M of them) stored as one JSON document per row, one index,
// and five aggregate queries, timed with the analytic timing model
// (--tries: cold and hot tries, answers hashed and compared across
// engines), which JSONBench itself does not have. Its capture cannot be
// downloaded here, so the events are generated with the shape and the
// distributions of JSONBench's published answers.
//
// # The events
//
// A Generator makes events in the shape of Bluesky's Jetstream: did
// (did:plc: and 24 base-32 characters), time_us (microseconds since
// 1970), kind, and for a commit (99.5 % of the events) commit {rev,
// operation, collection, rkey, record, cid} with a record shaped per
// collection (posts with createdAt, langs, text, a reply in a third and
// an image embed in a fifth; likes and reposts with their subject's cid
// and at:// URI; follows, blocks and list items with the subject's did;
// profiles, lists, starter packs, gates, feed generators and labelers
// with a few members each); deletes carry no record or cid. The others
// are identity {did, handle, seq, time} and account {active, did, seq,
// time} events (6 to 4).
//
// The distributions are those of JSONBench's answers at 1 M events: the
// 14 collections' shares of the events (likes 44.9 %, follows 36.0 %,
// posts 9.1 %, reposts 5.9 %, blocks 1.4 %, profiles 1.2 %, list items
// 0.8 %, …, and 0.53 % without a commit), each collection's share of
// creates (Q2 against Q1: 99.0 % of likes, 45 % of profiles, …; the rest
// deletes, or updates for profiles, lists, starter packs, gates, feed
// generators and labelers), and its users: each collection draws an
// event's user by rank ⌊P·u^1.5⌋ (u uniform; profiles uniformly) from a
// pool P that grows with the event's index as (i/1 M)^β, P and β
// calibrated so that Q2's distinct users come out as JSONBench's at 1 M
// and close to them at 10 M (the ranks are shared, so a busy liker is a
// busy poster). The capture starts at 2024-11-21 16:25:49 UTC, as
// JSONBench's, at 1,228 events a second (the first million span about
// 814 s, all in hour 16, as JSONBench's Q3 at 1 M), and at other hours
// of the day at the rate of JSONBench's likes per hour over its 1,000 M
// events (about 12 days): the quietest hour (09:00 UTC) has 45 % of the
// busiest's (23:00).
//
// Event i is a pure function of the seed (--seed-data) and i: batches
// load in parallel, in any order, and a data set is the beginning of
// every larger one with the same seed, as JSONBench's sizes are.
// AppendDoc writes the JSON by hand into a reused buffer, AppendDocBSON
// the BSON MongoDB stores for it.
//
// # Table, index and queries
//
// One table, bluesky: id (the event's number, the primary key; _id on
// MongoDB) and data, the event as a JSON document (jsonb on PostgreSQL,
// JSON on MySQL/MariaDB, JSON text on SQLite; on MongoDB the document
// itself), with JSONBench's one index (Declared): kind,
// commit.operation, commit.collection, did, time_us. The queries
// (Queries) are JSONBench's Q1–Q5, per engine: SQL on the indexed
// expressions (PostgreSQL's -> and ->>, MySQL/MariaDB's
// JSON_UNQUOTE(JSON_EXTRACT()), SQLite's json_extract) and MongoDB
// aggregation pipelines (package workload/jsonbench/mongo). Every top-N
// is ordered by its figure and then by did, in byte order, so that every
// engine returns the same rows; times come back as integers of
// microseconds and are written alike (Q4's first post as a UTC time, Q5's
// span in milliseconds). Answers computes them directly from the
// generator's output, for checking.
//
// This package imports no engine implementation and no driver.
package jsonbench
