// Package mongo is the payments workload's implementation for MongoDB:
// the seven tables as collections of the same rows (money as Decimal128,
// the balance CHECK as a validator), the transfer's lookups as
// aggregations with $lookup, step 4 as a transaction on the worker's
// session, and the checks as aggregation pipelines. It registers itself
// for engine.FamilyMongo; workload.ForFamily returns it, bound to the
// registered workload/payments workload whose options it reads, for
// MongoDB targets. It installs nothing: --mode procedure has no MongoDB
// counterpart and its workers refuse it. Package workload/payments
// documents the data model and the transfer.
//
// Import it for its side effects, as workload/all/mongo does:
//
//	import _ "github.com/dbarena/dbarena/workload/payments/mongo"
package mongo
