package script_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/script"
)

// A script that ends with its transaction open fails, as a pgbench client
// aborts ("end of script reached without completing the last
// transaction"), and its transaction is rolled back; one that closes
// every transaction it opens, whichever way, succeeds.
func TestScriptEndingInATransactionFails(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	dir := t.TempDir()
	for _, c := range []struct {
		src  string
		open bool
	}{
		{"BEGIN;\nSELECT 1;\n", true},
		{"START TRANSACTION;\nSELECT 1;\n", true},
		{"BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT 1;\n", true},
		{"BEGIN;\nSELECT 1;\nCOMMIT AND CHAIN;\n", true},
		{"BEGIN;\nSAVEPOINT a;\nROLLBACK TO SAVEPOINT a;\n", true},
		{"BEGIN;\nSELECT 1;\nEND;\n", false},
		{"BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT 1;\nROLLBACK;\n", false},
		{"BEGIN;\nSELECT 1;\nCOMMIT AND CHAIN;\nCOMMIT;\n", false},
		{"SELECT 1;\n", false},
	} {
		for _, protocol := range []string{"simple", "prepared"} {
			file := filepath.Join(dir, "open.sql")
			if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			w := newScript(t, "--file", file, "--protocol", protocol)
			conn := enginetest.Connect(t, e)
			k, err := startWorker(ctx, w, conn, workload.WorkerEnv{Queries: &workload.Queries{}})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				_, err = k.Next(ctx)
				var ce *script.CommandError
				switch {
				case c.open && (!errors.As(err, &ce) || !strings.Contains(err.Error(), "transaction open")):
					t.Errorf("%q (%s), run %d: error %v, want a CommandError saying the transaction is open", c.src, protocol, i, err)
				case !c.open && err != nil:
					t.Errorf("%q (%s), run %d: %v", c.src, protocol, i, err)
				}
			}
			// Nothing is left open on the connection.
			if err := conn.Exec(ctx, "BEGIN"); err != nil {
				t.Errorf("%q (%s): BEGIN after the script: %v", c.src, protocol, err)
			}
			if err := conn.Exec(ctx, "COMMIT"); err != nil {
				t.Errorf("%q (%s): COMMIT after the script: %v", c.src, protocol, err)
			}
		}
	}
}
