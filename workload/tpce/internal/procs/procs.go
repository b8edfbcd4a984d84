package procs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/byengine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// Mode is how a Client runs the transactions on the server.
type Mode string

const (
	// Procedure runs each transaction as one call of one server-side
	// function, in autocommit: one round trip per transaction.
	Procedure Mode = "procedure"
	// Frames runs each frame of the specification as one call of one
	// server-side function, in a transaction the client begins and ends,
	// the client doing the arithmetic between the frames (as DBT-5 does).
	Frames Mode = "frames"
)

// ErrUnsupported is returned by Install, Uninstall and New for engines
// without server-side transactions for TPC-E (wrapped, naming the engine).
var ErrUnsupported = errors.New("tpce: no server-side transactions on this engine; use --mode client")

// Names of the server functions dbarena creates: the helpers, the
// transactions (procedure mode) and the frames (frames mode; the
// transactions of one frame are called in both modes).
const (
	nameTS               = "tpce_ts"
	nameRound2           = "tpce_round2"
	nameReplace1         = "tpce_replace1"
	nameLookupTrades     = "tpce_lookup_trades"
	nameBrokerVolume     = "tpce_broker_volume"
	nameCustomerPosition = "tpce_customer_position"
	nameCPFrame1         = "tpce_customer_position_f1"
	nameCPFrame2         = "tpce_customer_position_f2"
	nameMarketFeed       = "tpce_market_feed"
	nameMarketWatch      = "tpce_market_watch"
	nameSecurityDetail   = "tpce_security_detail"
	nameTradeLookup      = "tpce_trade_lookup"
	nameTradeOrder       = "tpce_trade_order"
	nameTOFrame1         = "tpce_trade_order_f1"
	nameTOFrame2         = "tpce_trade_order_f2"
	nameTOFrame3         = "tpce_trade_order_f3"
	nameTOFrame4         = "tpce_trade_order_f4"
	nameTradeResult      = "tpce_trade_result"
	nameTRFrame1         = "tpce_trade_result_f1"
	nameTRFrame2         = "tpce_trade_result_f2"
	nameTRFrame3         = "tpce_trade_result_f3"
	nameTRFrame4         = "tpce_trade_result_f4"
	nameTRFrame5         = "tpce_trade_result_f5"
	nameTRFrame6         = "tpce_trade_result_f6"
	nameTradeStatus      = "tpce_trade_status"
	nameTradeUpdate      = "tpce_trade_update"
	nameDataMaintenance  = "tpce_data_maintenance"
	nameTradeCleanup     = "tpce_trade_cleanup"
)

// fn is one server function's name and source.
type fn struct{ name, src string }

var (
	helperNames = []string{nameTS, nameRound2, nameReplace1, nameLookupTrades}
	// oneFrame are the transactions of one frame: their function is the
	// frame's in both modes.
	oneFrame = []string{nameBrokerVolume, nameMarketFeed, nameMarketWatch, nameSecurityDetail, nameTradeLookup,
		nameTradeStatus, nameTradeUpdate, nameDataMaintenance, nameTradeCleanup}
	procedureOnly = []string{nameCustomerPosition, nameTradeOrder, nameTradeResult}
	framesOnly    = []string{nameCPFrame1, nameCPFrame2, nameTOFrame1, nameTOFrame2, nameTOFrame3, nameTOFrame4,
		nameTRFrame1, nameTRFrame2, nameTRFrame3, nameTRFrame4, nameTRFrame5, nameTRFrame6}
)

// Names lists every server function Install may create and Uninstall
// drops.
var Names = concat(helperNames, oneFrame, procedureOnly, framesOnly)

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// names are the functions mode m needs, helpers first.
func (m Mode) names() []string {
	if m == Procedure {
		return concat(helperNames, oneFrame, procedureOnly)
	}
	return concat(helperNames, oneFrame, framesOnly)
}

// Validate returns an error naming m when it is not Procedure or Frames.
func (m Mode) Validate() error {
	if m != Procedure && m != Frames {
		return fmt.Errorf("tpce: mode %q, want %s or %s", string(m), Procedure, Frames)
	}
	return nil
}

// flavor is the server code and the calls of one engine family; each
// engine's file registers its own in flavors.
type flavor struct {
	// inst installs and drops the functions.
	inst sqlproc.Installer
	// sources are the functions' CREATE statements by name; a helper
	// the engine does not need has none.
	sources map[string]string
	// supported returns an error wrapping ErrUnsupported when c's server
	// cannot run the functions (nil: every server of the engine can).
	supported func(ctx context.Context, c engine.SQLConn) error
	// call is the statement ('?' placeholders) that runs function name
	// with n arguments.
	call func(name string, n int) string
	// result runs a call and returns what the function reported missing
	// ("" for nothing) and its JSON result.
	result func(ctx context.Context, st engine.Stmt, args []any) (missing, result string, err error)
}

// flavors are the engines' flavors.
var flavors = byengine.Registry[flavor]{What: "tpce server functions", Err: ErrUnsupported}

// flavorOf picks the flavor of c's engine family.
func flavorOf(c engine.SQLConn) (flavor, error) {
	d := c.Dialect()
	if !d.Capabilities().Procedures {
		return flavor{}, fmt.Errorf("%w (%s)", ErrUnsupported, d.Name())
	}
	f, err := flavors.For(d.Capabilities().Kind)
	if err != nil {
		return flavor{}, fmt.Errorf("tpce: %w", err)
	}
	return f, nil
}

// runnable is flavorOf when c's server can run the flavor's functions.
func runnable(ctx context.Context, c engine.SQLConn) (flavor, error) {
	f, err := flavorOf(c)
	if err == nil && f.supported != nil {
		err = f.supported(ctx, c)
	}
	return f, err
}

// Install creates the server functions of mode m in c's current schema
// (PostgreSQL), replacing any earlier version of them (every overload of
// their names) in one transaction; the other mode's functions stay. It is
// idempotent. The functions take new trade ids from the sequence
// txn.Install creates, which must exist when a Trade-Order runs.
func Install(ctx context.Context, c engine.SQLConn, m Mode) error {
	if err := m.Validate(); err != nil {
		return err
	}
	f, err := runnable(ctx, c)
	if err != nil {
		return err
	}
	if err := f.inst.Install(ctx, c, sqlproc.Pick(m.names(), f.sources)); err != nil {
		return fmt.Errorf("tpce: installing the %s functions: %w", m, err)
	}
	return nil
}

// Uninstall drops every function of Names present in c's current schema
// (both modes'), and nothing else.
func Uninstall(ctx context.Context, c engine.SQLConn) error {
	f, err := flavorOf(c)
	if err != nil {
		return err
	}
	if err := f.inst.Uninstall(ctx, c, sqlproc.Names(sqlproc.Pick(Names, f.sources))); err != nil {
		return fmt.Errorf("tpce: dropping the server functions: %w", err)
	}
	return nil
}

// Client runs the transactions on one connection through the server
// functions of one mode. Its methods have the signatures, outputs and
// errors of txn.Client's. Like its connection, it is not safe for
// concurrent use.
type Client struct {
	c     engine.SQLConn
	f     flavor
	mode  Mode
	stmts map[string]engine.Stmt
	// Queries counts the statements sent: each call of a function that
	// writes as a write, of one that only reads as a read, and BEGIN,
	// COMMIT and ROLLBACK as others.
	Queries workload.Queries
	// Now is the clock of the timestamps the transactions write (UTC,
	// truncated to microseconds); time.Now by default.
	Now func() time.Time
}

// arity is the number of arguments of each function's call.
var arity = map[string]int{
	nameBrokerVolume: 2, nameCustomerPosition: 4, nameCPFrame1: 2, nameCPFrame2: 1,
	nameMarketFeed: 4, nameMarketWatch: 6, nameSecurityDetail: 4, nameTradeLookup: 7,
	nameTradeOrder: 13, nameTOFrame1: 1, nameTOFrame2: 4, nameTOFrame3: 12, nameTOFrame4: 15,
	nameTradeResult: 3, nameTRFrame1: 1, nameTRFrame2: 9, nameTRFrame3: 4, nameTRFrame4: 4, nameTRFrame5: 5, nameTRFrame6: 8,
	nameTradeStatus: 1, nameTradeUpdate: 8, nameDataMaintenance: 9, nameTradeCleanup: 2,
}

// readOnly are the functions that write nothing (Trade-Result's frame 1
// locks the trade it reads, as client mode's SELECT … FOR UPDATE, counted
// as a read there too).
var readOnly = map[string]bool{
	nameBrokerVolume: true, nameCustomerPosition: true, nameCPFrame1: true, nameCPFrame2: true,
	nameMarketWatch: true, nameSecurityDetail: true, nameTradeLookup: true, nameTradeStatus: true,
	nameTOFrame1: true, nameTOFrame2: true, nameTOFrame3: true, nameTRFrame1: true, nameTRFrame4: true,
}

// New returns a client of c in mode m, with the calls of m's functions
// prepared: it fails when they are not installed (Install).
func New(ctx context.Context, c engine.SQLConn, m Mode) (*Client, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	f, err := runnable(ctx, c)
	if err != nil {
		return nil, err
	}
	cl := &Client{c: c, f: f, mode: m, stmts: map[string]engine.Stmt{}, Now: time.Now}
	for _, n := range m.names()[len(helperNames):] {
		st, err := c.Prepare(ctx, f.call(n, arity[n]))
		if err != nil {
			return nil, fmt.Errorf("tpce: preparing the call of %s (is it installed? see procs.Install): %w", n, err)
		}
		cl.stmts[n] = st
	}
	return cl, nil
}

// Mode is the client's mode.
func (c *Client) Mode() Mode { return c.mode }

func (c *Client) now() time.Time { return c.Now().UTC().Truncate(time.Microsecond) }

// errMissing is returned by call when the function reports a row missing.
type errMissing string

func (e errMissing) Error() string { return string(e) }

// call runs function name with args and decodes its JSON result into out
// (when out is not nil). A row the function reports missing is returned
// as an error wrapping txn.ErrNotFound.
func (c *Client) call(ctx context.Context, name string, out any, args ...any) error {
	st, ok := c.stmts[name]
	if !ok {
		return fmt.Errorf("tpce: %s is not a function of %s mode", name, c.mode)
	}
	if readOnly[name] {
		c.Queries.Reads++
	} else {
		c.Queries.Writes++
	}
	missing, result, err := c.f.result(ctx, st, args)
	if err != nil {
		return fmt.Errorf("tpce: %s: %w", name, err)
	}
	if missing != "" {
		return fmt.Errorf("%w: %s", txn.ErrNotFound, missing)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(result), out); err != nil {
		return fmt.Errorf("tpce: decoding the result of %s: %w", name, err)
	}
	return nil
}

func (c *Client) begin(ctx context.Context) error {
	c.Queries.Other++
	return c.c.Begin(ctx)
}

func (c *Client) commit(ctx context.Context) error {
	c.Queries.Other++
	return c.c.Commit(ctx)
}

// rollback ends a transaction and returns err (joined with the rollback's
// own error, if any).
func (c *Client) rollback(ctx context.Context, err error) error {
	c.Queries.Other++
	if rerr := c.c.Rollback(context.WithoutCancel(ctx)); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// run runs fn as one transaction: in procedure mode fn's single call is
// the transaction (autocommit); in frames mode the client begins it and
// commits it, or rolls it back when fn fails.
func (c *Client) run(ctx context.Context, fn func() error) error {
	if c.mode == Procedure {
		return fn()
	}
	if err := c.begin(ctx); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return c.rollback(ctx, err)
	}
	return c.commit(ctx)
}

// idList renders ids as comma-separated decimal text.
func idList(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, id)
	}
	return b.String()
}
