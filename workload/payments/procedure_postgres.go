package payments

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

func init() {
	transfers.Register(engine.KindPostgres, transfer{inst: sqlproc.Postgres{}, create: pgTransfer})
}

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
