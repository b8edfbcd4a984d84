// Package mongo is the airline booking's implementation for MongoDB: the
// collections (the tables as documents, from the same generator), the
// booking as an aggregate, two insertOnes and an upsert, in one
// transaction or, with --transactions off, each operation alone, and the
// invariant checks as aggregations. It registers itself for
// engine.FamilyMongo; workload.ForFamily returns it, bound to the
// registered workload/airline workload whose options it reads, for
// MongoDB targets. Package workload/airline documents the data model and
// the transaction.
//
// Import it for its side effects, as workload/all/mongo does:
//
//	import _ "github.com/dbarena/dbarena/workload/airline/mongo"
package mongo
