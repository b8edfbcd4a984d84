package payments

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/byengine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

// Modes: step 4 sent as statements, or run by a server-side function.
const (
	ModeClient    = "client"
	ModeProcedure = "procedure"
)

// procName is the server-side transfer (step 4) of --mode procedure.
const procName = "dbarena_transfer"

// transfer is one engine's server-side transfer; each engine's file
// registers its own in transfers.
type transfer struct {
	// inst installs, drops and calls it.
	inst sqlproc.Installer
	// create is the statement that creates it.
	create string
}

// transfers are the engines' transfers.
var transfers = byengine.Registry[transfer]{What: "payments transfer procedure"}

// transferArgs is the number of the transfer's arguments.
const transferArgs = 7

// transferOf returns the transfer of d's engine, or an error naming
// --mode procedure when it has none.
func transferOf(d engine.SQLDialect) (transfer, error) {
	caps := d.Capabilities()
	if !caps.Procedures {
		return transfer{}, &workload.OptionError{Flag: "mode", Value: ModeProcedure, Err: d.Name() + " has no stored procedures (use --mode client)"}
	}
	t, err := transfers.For(caps.Kind)
	if err != nil {
		return transfer{}, &workload.OptionError{Flag: "mode", Value: ModeProcedure, Err: err.Error() + " (use --mode client)"}
	}
	return t, nil
}

// procedureCall is the statement that calls the transfer on d's engine.
func procedureCall(d engine.SQLDialect) (string, error) {
	t, err := transferOf(d)
	if err != nil {
		return "", err
	}
	return t.inst.Call(procName, transferArgs), nil
}

// Install creates the server-side transfer under --mode procedure,
// replacing an earlier version of it.
func (w *Payments) Install(ctx context.Context, conn engine.Conn) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	if w.opts.mode != ModeProcedure {
		return nil
	}
	t, err := transferOf(c.Dialect())
	if err != nil {
		return err
	}
	if err := t.inst.Install(ctx, c, []sqlproc.Routine{{Name: procName, Create: t.create}}); err != nil {
		return fmt.Errorf("payments: %w", err)
	}
	return nil
}

// Uninstall drops the server-side transfer where the engine has one.
func (w *Payments) Uninstall(ctx context.Context, conn engine.Conn) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	t, err := transferOf(c.Dialect())
	if err != nil {
		return nil // nothing was installed
	}
	return t.inst.Uninstall(ctx, c, []string{procName})
}
