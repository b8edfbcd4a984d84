// Package gen generates the initial TPC-C database and provides the
// specification's random functions (TPC-C standard specification,
// revision 5.11).
//
// # Random functions
//
// Uniform, NURand (clause 2.1.6), AString, NString, Zip and LastName
// (clause 4.3.2) are shared by the loader and the transactions. They read
// a *rand.Rand from math/rand/v2 only through its Uint64 method and do
// their own range reduction, so their results for a given generator state
// do not change with the Go release. Constants holds the run-time
// constants C of NURand: LoadConstants(seed) gives C-Load, the constants
// the data was generated with, and RunConstants draws a C-Run that obeys
// clause 2.1.6.1 (|C-Run - C-Load| for C_LAST in [65, 119], not 96 or
// 112).
//
// # Initial data
//
// Config describes a database (seed, number of warehouses, load
// timestamp). Its methods return one engine.RowSource per table and
// warehouse (item has no warehouse), yielding the rows of clause 4.3.3.1
// in the column order of schema.Tables, with int64 for integer columns,
// string for CHAR and VARCHAR, float64 for DECIMAL (an exact multiple of
// the column's scale), time.Time for timestamps and nil for NULL.
//
// Every source is a pure function of (Config.Seed, table, warehouse) and
// Config.Now: it draws from PCG streams seeded with a SplitMix64 mix of
// the seed, a per-table tag, the warehouse and, for the tables organised
// by district, the district. Sources therefore give the same rows every
// time, in any order, in parallel, and whatever the number of
// warehouses. Orders and order lines share one stream per district for
// o_ol_cnt and o_carrier_id, so OrderLines agrees with Orders without
// materialising it. A golden hash test pins the data: changing a draw,
// its order or a stream tag changes it.
//
// The "10% of the rows, selected at random" rules (ORIGINAL in i_data and
// s_data, c_credit "BC") are independent draws per row, so the share is
// 10% on average, not exactly.
//
// # Concurrency
//
// The package functions and Config's methods are safe for concurrent
// use. A RowSource is not: it belongs to one goroutine, and the slice its
// Values returns is overwritten by the next call to Next and must not be
// modified. The random functions use the caller's *rand.Rand, which is
// not safe for concurrent use either.
package gen
