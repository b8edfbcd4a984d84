package payments

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

func init() {
	transfers.Register(engine.KindMySQL, transfer{inst: sqlproc.MySQL{}, create: mysqlTransfer})
}

// The transfer as a MySQL/MariaDB procedure, in its own transaction: the
// steps of the PL/pgSQL function (procedure_postgres.go), with ROLLBACK
// for a declined transfer. It returns its status as a one-row result set.
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
