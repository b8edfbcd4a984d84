// Package jsondoc is what the workloads of generated JSON documents
// (docolap, jsonbench) share, so that each holds only its documents and
// its queries:
//
//   - Enc writes a document by hand into a reused buffer, as compact JSON
//     or as the BSON MongoDB stores for that JSON; Rng (Stream) is a
//     document's own random stream, so that document i is a pure function
//     of (seed, i).
//   - Table and Declare make a table of (id, document) rows in batches;
//     Dump writes the same rows in PostgreSQL's COPY text format, in
//     order, made by every processor.
//   - Query, Row and Format make every engine's answers read alike (counts,
//     averages, times in microseconds); RunSQL runs a query's text;
//     NewWorker runs a --query list in turn (ParseList, OpNames, Ops).
//   - SQL holds each SQL engine's JSON expressions on a column, the very
//     ones its schema renderer indexes a path key with.
//
// Package jsondoc/mongo runs a query's aggregation pipeline and encodes
// the documents as BSON slabs for loading.
package jsondoc
