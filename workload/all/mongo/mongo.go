// Package mongo registers every workload's implementation for MongoDB
// (engine.FamilyMongo), the …/mongo subpackages, and every workload
// (package workload/all). Import it for its side effects:
//
//	import _ "github.com/dbarena/dbarena/workload/all/mongo"
package mongo

import (
	// Every workload.
	_ "github.com/dbarena/dbarena/workload/all"
	// Airline booking on MongoDB.
	_ "github.com/dbarena/dbarena/workload/airline/mongo"
	// JSON document analytics on MongoDB.
	_ "github.com/dbarena/dbarena/workload/docolap/mongo"
	_ "github.com/dbarena/dbarena/workload/jsonbench/mongo"
	// The sysbench-compatible OLTP tests on MongoDB.
	_ "github.com/dbarena/dbarena/workload/oltp/mongo"
	// Funds transfers on MongoDB.
	_ "github.com/dbarena/dbarena/workload/payments/mongo"
)
