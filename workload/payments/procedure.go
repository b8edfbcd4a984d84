package payments

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// Modes: step 4 sent as statements, or run by a server-side function.
const (
	ModeClient    = "client"
	ModeProcedure = "procedure"
)

// procName is the server-side transfer (step 4) of --mode procedure.
const procName = "dbarena_transfer"

// The transfer as a PL/pgSQL function: debit (only if the money is there)
// and credit in the order --lock-order asks, then the transfer row. It
// returns 1, or 0 for a declined transfer, whose updates the exception
// block's subtransaction takes back. Deadlocks and serialization failures
// reach the client, which retries.
const pgTransfer = `CREATE OR REPLACE FUNCTION ` + procName + `(p_card INT, p_from INT, p_to INT, p_user INT, p_amount NUMERIC, p_lock_order BOOLEAN, p_at TIMESTAMP)
RETURNS INT LANGUAGE plpgsql AS $$
DECLARE
  n INT;
BEGIN
  IF p_lock_order AND p_to < p_from THEN
    UPDATE accounts SET balance = balance + p_amount WHERE id = p_to;
    UPDATE accounts SET balance = balance - p_amount WHERE id = p_from AND balance >= p_amount;
    GET DIAGNOSTICS n = ROW_COUNT;
  ELSE
    UPDATE accounts SET balance = balance - p_amount WHERE id = p_from AND balance >= p_amount;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n = 1 THEN
      UPDATE accounts SET balance = balance + p_amount WHERE id = p_to;
    END IF;
  END IF;
  IF n <> 1 THEN
    RAISE EXCEPTION 'transfer declined' USING ERRCODE = 'DBA01';
  END IF;
  INSERT INTO transfers (card_id, from_account, to_account, user_id, amount, created_at) VALUES (p_card, p_from, p_to, p_user, p_amount, p_at);
  RETURN 1;
EXCEPTION WHEN SQLSTATE 'DBA01' THEN
  RETURN 0;
END
$$`

// The same as a MySQL/MariaDB procedure with its own transaction; it
// returns its status as a one-row result set.
const mysqlTransfer = `CREATE PROCEDURE ` + procName + `(IN p_card INT, IN p_from INT, IN p_to INT, IN p_user INT, IN p_amount DECIMAL(14,2), IN p_lock_order BOOLEAN, IN p_at DATETIME(6))
BEGIN
  DECLARE n INT DEFAULT 0;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  IF p_lock_order AND p_to < p_from THEN
    UPDATE accounts SET balance = balance + p_amount WHERE id = p_to;
    UPDATE accounts SET balance = balance - p_amount WHERE id = p_from AND balance >= p_amount;
    SET n = ROW_COUNT();
  ELSE
    UPDATE accounts SET balance = balance - p_amount WHERE id = p_from AND balance >= p_amount;
    SET n = ROW_COUNT();
    IF n = 1 THEN
      UPDATE accounts SET balance = balance + p_amount WHERE id = p_to;
    END IF;
  END IF;
  IF n <> 1 THEN
    ROLLBACK;
    SELECT 0;
  ELSE
    INSERT INTO transfers (card_id, from_account, to_account, user_id, amount, created_at) VALUES (p_card, p_from, p_to, p_user, p_amount, p_at);
    COMMIT;
    SELECT 1;
  END IF;
END`

// procedureSQL is the engine's create, drop and call statements.
func procedureSQL(d engine.SQLDialect) (create []string, drop, call string, err error) {
	switch d.Name() {
	case "postgres":
		return []string{pgTransfer}, "DROP FUNCTION IF EXISTS " + procName + "(INT, INT, INT, INT, NUMERIC, BOOLEAN, TIMESTAMP)",
			"SELECT " + procName + "(?, ?, ?, ?, ?, ?, ?)", nil
	case "mysql":
		drop := "DROP PROCEDURE IF EXISTS " + procName
		return []string{drop, mysqlTransfer}, drop, "CALL " + procName + "(?, ?, ?, ?, ?, ?, ?)", nil
	}
	return nil, "", "", &workload.OptionError{Flag: "mode", Value: ModeProcedure, Err: d.Name() + " has no stored procedures (use --mode client)"}
}

// Install creates the server-side transfer under --mode procedure.
func (w *Payments) Install(ctx context.Context, conn engine.Conn) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	if w.opts.mode != ModeProcedure {
		return nil
	}
	create, _, _, err := procedureSQL(c.Dialect())
	if err != nil {
		return err
	}
	for _, s := range create {
		if err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("payments: creating %s: %w", procName, err)
		}
	}
	return nil
}

// Uninstall drops the server-side transfer where the engine has one.
func (w *Payments) Uninstall(ctx context.Context, conn engine.Conn) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	_, drop, _, err := procedureSQL(c.Dialect())
	if err != nil {
		return nil // nothing was installed
	}
	return c.Exec(ctx, drop)
}
