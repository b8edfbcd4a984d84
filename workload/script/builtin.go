package script

import (
	"fmt"
	"strings"
)

// builtins are pgbench's built-in scripts, as its documentation gives
// them ("What Is the “Transaction” Actually Performed in pgbench?").
var builtins = map[string]string{
	"tpcb-like": `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	"simple-update": `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	"select-only": `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`,
}

// BuiltinNames are the built-in scripts' names, as pgbench's -b takes
// them.
func BuiltinNames() []string { return []string{"tpcb-like", "simple-update", "select-only"} }

// Builtin returns the text of a built-in script.
func Builtin(name string) (string, bool) {
	s, ok := builtins[name]
	return s, ok
}

// findBuiltin resolves a built-in script's name as pgbench's -b does: a
// name or a prefix of exactly one name ("tpcb", "select").
func findBuiltin(prefix string) (string, error) {
	var found []string
	for _, n := range BuiltinNames() {
		if n == prefix {
			return n, nil
		}
		if prefix != "" && strings.HasPrefix(n, prefix) {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no such built-in script; the built-in scripts are %s", strings.Join(BuiltinNames(), ", "))
	}
	return "", fmt.Errorf("ambiguous: the built-in scripts %s start with %q", strings.Join(found, " and "), prefix)
}
