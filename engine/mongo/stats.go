package mongo

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine"
)

// serverStats is MongoDB's part of the server metrics: serverStatus, one
// command per sample on the monitor's own connection. The server's process
// is found through the engine (engine.ProcessReporter: serverStatus' pid,
// getCmdLineOpts' dbPath); what Open says of it is when the server
// started, so that a reopened connection tells a restarted server (whose
// counters start again) from the same one.
var serverStats = &engine.ServerStats{Open: openStats, Metrics: metrics}

// statusCommand is serverStatus without the sections no metric reads
// (the largest ones; the server ignores a section it does not have).
var statusCommand = bson.D{
	{Key: "serverStatus", Value: 1},
	{Key: "metrics", Value: 0}, {Key: "locks", Value: 0}, {Key: "repl", Value: 0},
	{Key: "storageEngine", Value: 0}, {Key: "electionMetrics", Value: 0},
}

// openStats runs serverStatus once on c's client: a source when it
// answers, a note when it does not.
func openStats(ctx context.Context, conn engine.Conn) engine.ServerStatsOpening {
	c, err := ConnOf(conn)
	if err != nil {
		return engine.ServerStatsOpening{Notes: []string{fmt.Sprintf("mongodb: the monitor's connection: %v: no MongoDB metrics", err)}}
	}
	src := &statusSource{run: func(ctx context.Context) (bson.Raw, error) {
		return c.e.client.Database("admin").RunCommand(ctx, statusCommand).Raw()
	}}
	var out engine.ServerStatsOpening
	doc, err := src.run(ctx)
	if err == nil {
		err = decodeStatus(doc, discard{})
	}
	if err != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("mongodb: cannot read serverStatus (%v): no MongoDB metrics", err))
		return out
	}
	out.Source = src
	out.Process.Start = startedAt(doc)
	return out
}

// startedAt is when the server started, in seconds since the epoch, from
// serverStatus' localTime and uptimeMillis; 0 when either is missing.
func startedAt(doc bson.Raw) float64 {
	lt, ok := doc.Lookup("localTime").DateTimeOK()
	if !ok {
		return 0
	}
	up, ok := doc.Lookup("uptimeMillis").AsInt64OK()
	if !ok {
		return 0
	}
	return float64(time.UnixMilli(lt).Add(-time.Duration(up)*time.Millisecond).UnixMilli()) / 1000
}

// statusSource samples serverStatus.
type statusSource struct {
	run func(ctx context.Context) (bson.Raw, error)
}

var _ engine.StatsSource = (*statusSource)(nil)

func (s *statusSource) Name() string { return "mongodb" }

func (s *statusSource) Sample(ctx context.Context, sink engine.StatsSink) error {
	doc, err := s.run(ctx)
	if err != nil {
		return err
	}
	return decodeStatus(doc, sink)
}

// discard is a sink that keeps nothing.
type discard struct{}

func (discard) SetCounter(string, uint64) {}
func (discard) SetGauge(string, float64)  {}

// statusCounters are serverStatus' cumulative counters sampled, by path.
var statusCounters = [][]string{
	{"opcounters", "insert"}, {"opcounters", "query"}, {"opcounters", "update"},
	{"opcounters", "delete"}, {"opcounters", "getmore"}, {"opcounters", "command"},
	{"transactions", "totalCommitted"}, {"transactions", "totalAborted"},
	{"network", "bytesIn"}, {"network", "bytesOut"},
}

// decodeStatus sets what serverStatus document doc says: its counters
// under "mongo." and their dotted path, the gauges mongo.cache_mb,
// mongo.cache_dirty_mb, mongo.tickets_read, mongo.tickets_write and
// mongo.connections_current. opcounters, network and connections are in
// every serverStatus; a section that is missing (transactions on a
// standalone server before 4.0, wiredTiger on another storage engine)
// leaves its values out. Tickets come from queues.execution (7.0 and
// later) or else wiredTiger.concurrentTransactions (up to 6.0). A value
// of the wrong type or a negative counter is an error.
func decodeStatus(doc bson.Raw, s engine.StatsSink) error {
	for _, p := range statusCounters {
		v, err := doc.LookupErr(p...)
		if err != nil {
			if p[0] == "transactions" {
				continue
			}
			return fmt.Errorf("serverStatus has no %s.%s", p[0], p[1])
		}
		n, ok := v.AsInt64OK()
		if !ok || n < 0 {
			return fmt.Errorf("serverStatus: %s.%s is %v, not a count", p[0], p[1], v)
		}
		s.SetCounter("mongo."+p[0]+"."+p[1], uint64(n))
	}
	gauge := func(name string, scale float64, path ...string) error {
		v, err := doc.LookupErr(path...)
		if err != nil {
			return nil
		}
		f, ok := v.AsFloat64OK()
		if !ok {
			return fmt.Errorf("serverStatus: %v is %v, not a number", path, v)
		}
		s.SetGauge(name, f/scale)
		return nil
	}
	const mb = 1 << 20
	tickets := []string{"queues", "execution"}
	if _, err := doc.LookupErr(tickets...); err != nil {
		tickets = []string{"wiredTiger", "concurrentTransactions"}
	}
	for _, g := range []struct {
		name  string
		scale float64
		path  []string
	}{
		{"mongo.connections_current", 1, []string{"connections", "current"}},
		{"mongo.cache_mb", mb, []string{"wiredTiger", "cache", "bytes currently in the cache"}},
		{"mongo.cache_dirty_mb", mb, []string{"wiredTiger", "cache", "tracked dirty bytes in the cache"}},
		{"mongo.tickets_read", 1, append(tickets[:2:2], "read", "available")},
		{"mongo.tickets_write", 1, append(tickets[:2:2], "write", "available")},
	} {
		if err := gauge(g.name, g.scale, g.path...); err != nil {
			return err
		}
	}
	return nil
}

// rate shortens the metric table.
func rate(name, help, counter string) engine.StatsMetric {
	return engine.StatsMetric{Name: name, Unit: "/s", Help: help, Kind: engine.MetricRate, Counters: []string{counter}}
}

// gauge shortens the metric table.
func gauge(name, unit, help, g string) engine.StatsMetric {
	return engine.StatsMetric{Name: name, Unit: unit, Help: help, Kind: engine.MetricGauge, Counters: []string{g}}
}

// The report's charts of MongoDB's metrics (engine.StatsMetric.Chart).
const (
	chartOps     = "MongoDB operations per second"
	chartTxn     = "MongoDB transactions per second"
	chartCache   = "WiredTiger cache (MB)"
	chartTickets = "tickets available"
	chartNet     = "MongoDB network (MB/s)"
)

// charted places m in the report's chart title under label.
func charted(m engine.StatsMetric, title, label string) engine.StatsMetric {
	m.Chart, m.ChartLabel = title, label
	return m
}

// metrics are MongoDB's server metrics, in the order reports list them.
var metrics = []engine.StatsMetric{
	charted(rate("mongo_opcounters_insert_s", "documents inserted per second (serverStatus opcounters.insert)", "mongo.opcounters.insert"), chartOps, "insert"),
	charted(rate("mongo_opcounters_query_s", "queries per second (opcounters.query)", "mongo.opcounters.query"), chartOps, "query"),
	charted(rate("mongo_opcounters_update_s", "update operations per second (opcounters.update)", "mongo.opcounters.update"), chartOps, "update"),
	charted(rate("mongo_opcounters_delete_s", "delete operations per second (opcounters.delete)", "mongo.opcounters.delete"), chartOps, "delete"),
	charted(rate("mongo_opcounters_getmore_s", "getMore operations (next batches of cursors) per second (opcounters.getmore)", "mongo.opcounters.getmore"), chartOps, "getmore"),
	charted(rate("mongo_opcounters_command_s", "commands per second (opcounters.command; the monitor's serverStatus included)", "mongo.opcounters.command"), chartOps, "command"),
	charted(rate("mongo_txn_commits_s", "transactions committed per second (transactions.totalCommitted)", "mongo.transactions.totalCommitted"), chartTxn, "committed"),
	charted(rate("mongo_txn_aborts_s", "transactions aborted per second (transactions.totalAborted)", "mongo.transactions.totalAborted"), chartTxn, "aborted"),
	charted(gauge("mongo_cache_mb", "MB", "WiredTiger cache in use in MB (wiredTiger.cache \"bytes currently in the cache\")", "mongo.cache_mb"), chartCache, "in cache"),
	charted(gauge("mongo_cache_dirty_mb", "MB", "dirty bytes in the WiredTiger cache in MB (\"tracked dirty bytes in the cache\")", "mongo.cache_dirty_mb"), chartCache, "dirty"),
	charted(gauge("mongo_tickets_read", "tickets", "read tickets available (queues.execution.read.available; up to 6.0 wiredTiger.concurrentTransactions)", "mongo.tickets_read"), chartTickets, "read"),
	charted(gauge("mongo_tickets_write", "tickets", "write tickets available (as mongo_tickets_read, write)", "mongo.tickets_write"), chartTickets, "write"),
	charted(engine.StatsMetric{Name: "mongo_net_in_mb_s", Unit: "MB/s", Help: "bytes received per second in MB (network.bytesIn)",
		Kind: engine.MetricMBRate, Counters: []string{"mongo.network.bytesIn"}}, chartNet, "in"),
	charted(engine.StatsMetric{Name: "mongo_net_out_mb_s", Unit: "MB/s", Help: "bytes sent per second in MB (network.bytesOut)",
		Kind: engine.MetricMBRate, Counters: []string{"mongo.network.bytesOut"}}, chartNet, "out"),
	gauge("mongo_connections", "connections", "connections open (connections.current), the monitor's included", "mongo.connections_current"),
}
