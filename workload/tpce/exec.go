package tpce

import (
	"context"

	"errors"
	"github.com/dbarena/dbarena/engine"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/procs"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// Execution modes (--mode).
const (
	// ModeClient sends every statement from dbarena (package txn).
	ModeClient = "client"
	// ModeProcedure calls one server-side function per transaction.
	ModeProcedure = "procedure"
	// ModeFrames calls one server-side function per frame, dbarena
	// doing the arithmetic between frames, as DBT-5 does.
	ModeFrames = "frames"
)

// executor runs the transactions on one connection, in one mode: the
// methods of txn.Client, with its inputs and outputs. It belongs to one
// worker's goroutine.
type executor interface {
	BrokerVolume(ctx context.Context, in txn.BrokerVolumeInput) ([]txn.BrokerVolume, error)
	CustomerPosition(ctx context.Context, in txn.CustomerPositionInput) (*txn.CustomerPositionOutput, error)
	MarketFeed(ctx context.Context, in txn.MarketFeedInput) ([]txn.Triggered, error)
	MarketWatch(ctx context.Context, in txn.MarketWatchInput) (*txn.MarketWatchOutput, error)
	SecurityDetail(ctx context.Context, in txn.SecurityDetailInput) (*txn.SecurityDetailOutput, error)
	TradeLookup(ctx context.Context, in txn.TradeLookupInput) (*txn.TradeLookupOutput, error)
	TradeOrder(ctx context.Context, in txn.TradeOrderInput) (*txn.TradeOrderOutput, error)
	TradeResult(ctx context.Context, in txn.TradeResultInput) (*txn.TradeResultOutput, error)
	TradeStatus(ctx context.Context, in txn.TradeStatusInput) (*txn.TradeStatusOutput, error)
	TradeUpdate(ctx context.Context, in txn.TradeUpdateInput) (*txn.TradeUpdateOutput, error)
	DataMaintenance(ctx context.Context, in txn.DataMaintenanceInput) (int64, error)
	TradeCleanup(ctx context.Context, in txn.TradeCleanupInput) (int, error)
	// TakeQueries returns the statements sent since the last call and
	// starts counting afresh.
	TakeQueries() workload.Queries
}

// newExecutor returns the executor of mode on c; pipeline is --pipeline
// (client mode). This is the one place that knows the modes' code.
func newExecutor(ctx context.Context, mode string, c engine.SQLConn, pipeline bool) (executor, error) {
	switch mode {
	case ModeClient:
		cl, err := txn.New(ctx, c)
		if err != nil {
			return nil, err
		}
		cl.Pipeline = pipeline
		return clientExecutor{cl}, nil
	case ModeProcedure, ModeFrames:
		cl, err := procs.New(ctx, c, procs.Mode(mode))
		if err != nil {
			return nil, modeError(mode, err)
		}
		return procsExecutor{cl}, nil
	}
	return nil, &workload.OptionError{Flag: "mode", Value: mode, Err: "must be client, procedure or frames"}
}

// installMode installs what mode keeps on the server (Install calls it
// after the checks every mode shares): nothing in client mode, the
// mode's server functions otherwise (package procs).
func installMode(ctx context.Context, mode string, c engine.SQLConn) error {
	switch mode {
	case ModeClient:
		return nil
	case ModeProcedure, ModeFrames:
		if err := procs.Install(ctx, c, procs.Mode(mode)); err != nil {
			return modeError(mode, err)
		}
		return nil
	}
	return &workload.OptionError{Flag: "mode", Value: mode, Err: "must be client, procedure or frames"}
}

// uninstallMode drops what any mode keeps on the server (cleanup calls
// it whatever the mode): the server functions of both modes, where the
// engine has them.
func uninstallMode(ctx context.Context, c engine.SQLConn) error {
	if err := procs.Uninstall(ctx, c); err != nil && !errors.Is(err, procs.ErrUnsupported) {
		return err
	}
	return nil
}

// modeError names --mode in an engine's refusal of server-side code.
func modeError(mode string, err error) error {
	if errors.Is(err, procs.ErrUnsupported) {
		return &workload.OptionError{Flag: "mode", Value: mode, Err: err.Error()}
	}
	return err
}

// procsExecutor is procedure and frames mode: procs.Client.
type procsExecutor struct{ *procs.Client }

// TakeQueries implements executor.
func (c procsExecutor) TakeQueries() workload.Queries {
	q := c.Client.Queries
	c.Client.Queries = workload.Queries{}
	return q
}

// clientExecutor is client mode: txn.Client.
type clientExecutor struct{ *txn.Client }

// TakeQueries implements executor.
func (c clientExecutor) TakeQueries() workload.Queries {
	q := c.Client.Queries
	c.Client.Queries = workload.Queries{}
	return q
}
