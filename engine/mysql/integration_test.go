package mysql_test

import (
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	_ "github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/internal/testdb"
)

func TestConformance(t *testing.T) {
	enginetest.Run(t, testdb.Isolated(t, testdb.MySQL(t)), enginetest.Config{
		Table:    "conf_mysql",
		Network:  true,
		Deadlock: true,
		SleepSQL: "SELECT SLEEP(5)",
		// MariaDB 10.11 names the variable tx_isolation (transaction_isolation from 11.1, MySQL 8).
		IsolationSQL: "SELECT @@SESSION.tx_isolation",
		Isolations:   map[string]string{engine.ReadCommitted: "READ-COMMITTED", engine.RepeatableRead: "REPEATABLE-READ", engine.Serializable: "SERIALIZABLE"},
	})
}
