package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
)

// check -v says what it checks and lists every rule it checked; a failed
// check says what was checked and why even without -v (a script that
// touched only the accounts fails the tpcb invariant, and check says the
// invariant holds after tpcb-like scripts only).
func TestCheckSaysWhatItChecks(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--tables", "2", "--table-size", "100", "--target", sq); o.code != 0 {
		t.Fatalf("prepare: %d %s", o.code, o.stderr)
	}
	o := dbarena(t, ctx, nil, "check", "oltp_point_select", "--tables", "2", "--table-size", "100", "--target", sq, "-v")
	for _, want := range []string{"what is checked: Each sbtest table exists", "keeps exactly --table-size rows", "2 rules checked:\n",
		"  sbtest1: columns, no NULLs, c and pad's template, ids and k, exactly 100 rows\n", "  sbtest2:", ": ok\n"} {
		if o.code != 0 || !strings.Contains(o.stdout, want) {
			t.Errorf("check -v: exit %d, output lacks %q:\n%s%s", o.code, want, o.stdout, o.stderr)
		}
	}
	if o := dbarena(t, ctx, nil, "check", "oltp_point_select", "--tables", "2", "--table-size", "100", "--target", sq); strings.Contains(o.stdout, "what is checked") {
		t.Errorf("check without -v, passing, explains itself:\n%s", o.stdout)
	}

	pg := sqliteURL(t)
	if o := dbarena(t, ctx, nil, "prepare", "script", "--init", "pgbench", "--scale", "1", "--target", pg); o.code != 0 {
		t.Fatalf("prepare pgbench: %d %s", o.code, o.stderr)
	}
	script := filepath.Join(t.TempDir(), "accounts.sql")
	os.WriteFile(script, []byte("\\set aid random(1, 100000)\nUPDATE pgbench_accounts SET abalance = abalance + 5 WHERE aid = :aid;\n"), 0o644)
	if o := dbarena(t, ctx, nil, "run", "script", "--init", "pgbench", "--scale", "1", "--file", script, "--events", "20", "--target", pg); o.code != 0 {
		t.Fatalf("run: %d %s", o.code, o.stderr)
	}
	o = dbarena(t, ctx, nil, "check", "script", "--init", "pgbench", "--scale", "1", "--target", pg)
	for _, want := range []string{"FAIL tpcb balances: Σ abalance 100, Σ tbalance 0", "what is checked: The tpcb invariant",
		"It holds after tpcb-like scripts only: a script that changes balances otherwise (only the accounts, say)"} {
		if o.code != cli.ExitCheckFailed || !strings.Contains(o.stdout, want) {
			t.Errorf("check script: exit %d, output lacks %q:\n%s%s", o.code, want, o.stdout, o.stderr)
		}
	}
}
