// Package all registers every dbarena workload: its shared part and its
// implementation for the SQL family. The implementations for other
// engine families are registered by workload/all/mongo, which imports
// this package too. Import them for their side effects:
//
//	import (
//		_ "github.com/dbarena/dbarena/workload/all"
//		_ "github.com/dbarena/dbarena/workload/all/mongo"
//	)
//
// Like every package under workload/ but the family subpackages, all
// depends on no engine implementation and no driver.
package all

import (
	// Airline booking, from the PostgreSQL/MongoDB study.
	_ "github.com/dbarena/dbarena/workload/airline"
	// JSON document analytics, from the PostgreSQL/MongoDB OLAP study.
	_ "github.com/dbarena/dbarena/workload/docolap"
	// JSON analytics, ClickHouse's JSONBench (Bluesky events, Q1–Q5).
	_ "github.com/dbarena/dbarena/workload/jsonbench"
	// The sysbench-compatible OLTP tests (oltp_read_write, …).
	_ "github.com/dbarena/dbarena/workload/oltp"
	// Funds transfers, from the MySQL/PostgreSQL payments study.
	_ "github.com/dbarena/dbarena/workload/payments"
	// pgbench-compatible scripts: user-written or pgbench's built-in ones.
	_ "github.com/dbarena/dbarena/workload/script"
	// TPC-C-like order processing, HammerDB TPROC-C style.
	_ "github.com/dbarena/dbarena/workload/tpcc"
	// TPC-E-like brokerage (its data and checks so far).
	_ "github.com/dbarena/dbarena/workload/tpce"
)
