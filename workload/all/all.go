// Package all registers every dbarena workload and every workload's
// implementation for an engine family other than SQL (the …/mongo
// subpackages). Import it for its side effects:
//
//	import _ "github.com/dbarena/dbarena/workload/all"
package all

import (
	// Airline booking, from the PostgreSQL/MongoDB study.
	_ "github.com/dbarena/dbarena/workload/airline"
	// Its implementation for MongoDB.
	_ "github.com/dbarena/dbarena/workload/airline/mongo"
	// The sysbench-compatible OLTP tests (oltp_read_write, …).
	_ "github.com/dbarena/dbarena/workload/oltp"
	// Their implementation for MongoDB.
	_ "github.com/dbarena/dbarena/workload/oltp/mongo"
	// Funds transfers, from the MySQL/PostgreSQL payments study.
	_ "github.com/dbarena/dbarena/workload/payments"
	// Its implementation for MongoDB.
	_ "github.com/dbarena/dbarena/workload/payments/mongo"
	_ "github.com/dbarena/dbarena/workload/tpcc"
)
