package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/prom"
	"github.com/dbarena/dbarena/runner"
)

// addMetricsAddr registers --metrics-addr on fs.
func addMetricsAddr(fs *pflag.FlagSet, addr *string) {
	fs.StringVar(addr, "metrics-addr", "", "serve Prometheus metrics of the runs as they go on this address (host:port, e.g. 127.0.0.1:9187) at /metrics")
}

// liveMetrics is a command's Prometheus exporter, or nothing: every
// method of a nil *liveMetrics does nothing.
type liveMetrics struct{ e *prom.Exporter }

// serveMetrics starts serving on addr ("" serves nothing). An address
// that cannot be bound (in use, not this host's) is bad input, reported
// before any work.
func serveMetrics(st *State, addr string) (*liveMetrics, error) {
	if addr == "" {
		return nil, nil
	}
	e, err := prom.Listen(addr)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("--metrics-addr %s: %w", addr, err)}
	}
	fmt.Fprintf(st.Stdout, "serving metrics on http://%s/metrics\n", e.Addr())
	return &liveMetrics{e: e}, nil
}

func (l *liveMetrics) observer(next runner.Observer) runner.Observer {
	if l == nil {
		return next
	}
	return l.e.Observer(next)
}

// begin starts a run's series with cfg's thread count. This is where an
// arrival-rate run's offered rate is to be handed on, after Begin, with
// l.e.SetRate (served as dbarena_rate); a closed-loop run has none.
func (l *liveMetrics) begin(target, workload, run string, cfg runner.Config) {
	if l == nil {
		return
	}
	labels := prom.Labels{Target: target, Workload: workload, Run: run}
	if cfg.Shard.Count > 0 {
		labels.Shard = strconv.Itoa(cfg.Shard.Index)
	}
	l.e.Begin(labels, cfg.Threads)
	if cfg.Rate.TPS != nil {
		l.e.SetRate(*cfg.Rate.TPS / float64(cfg.Shard.Whole().Count)) // the shard's part
	}
}

func (l *liveMetrics) end() {
	if l != nil {
		l.e.End()
	}
}

func (l *liveMetrics) close() {
	if l != nil {
		_ = l.e.Close()
	}
}
