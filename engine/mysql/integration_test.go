package mysql_test

import (
	"testing"

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
	})
}
