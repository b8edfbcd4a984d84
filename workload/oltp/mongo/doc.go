// Package mongo is the sysbench tests' implementation for MongoDB: sbtest
// tables as collections of documents {_id, k, c, pad} from the same
// generator, each SQL statement as the MongoDB operation that does the
// same work (findOne, find, aggregate, updateOne, deleteOne, insertOne),
// BEGIN … COMMIT as a transaction on the worker's session, and the checks
// as aggregations. Events are drawn from oltp.Events, the same source as
// on SQL engines, and statements are counted as sysbench counts them. It
// registers itself for engine.FamilyMongo under every test's name;
// workload.ForFamily returns it, bound to the registered workload/oltp
// test whose options it reads, for MongoDB targets.
//
// Import it for its side effects, as workload/all/mongo does:
//
//	import _ "github.com/dbarena/dbarena/workload/oltp/mongo"
package mongo
