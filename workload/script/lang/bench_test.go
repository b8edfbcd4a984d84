package lang

import "testing"

// BenchmarkTPCBSets evaluates tpcb-like's four \set commands and writes
// its UPDATE with the values, as a client does per transaction under
// --protocol simple.
func BenchmarkTPCBSets(b *testing.B) {
	s, err := Parse("tpcb", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
`, ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	env := &benchEnv{vars: NewVars(), rand: NewRand(1)}
	env.vars.Set("scale", Int(10))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, c := range s.Commands[:4] {
			v, err := Eval(c.Expr, env)
			if err != nil {
				b.Fatal(err)
			}
			env.vars.Set(c.Var, v)
		}
		_ = s.Commands[4].Queries[0].Interpolate(env.vars.Text)
	}
}

type benchEnv struct {
	vars *Vars
	rand *Rand
}

func (e *benchEnv) Variable(name string) (Value, bool, error) { return e.vars.Value(name) }
func (e *benchEnv) Rand() *Rand                               { return e.rand }
func (e *benchEnv) Debug(Value)                               {}

// The built-in scripts' text, as pgbench has it (the script package
// holds the same).
const (
	benchSelectOnly = `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`
	benchTPCB = `\set aid random(1, 100000 * :scale)
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
`
)

// BenchmarkTransaction is the language's share of one transaction of a
// built-in script, as a client runs it: every \set evaluated and stored,
// and every query either written with the variables' text (simple) or
// turned into a parameterised query whose parameters are the variables'
// values (extended and prepared).
func BenchmarkTransaction(b *testing.B) {
	for _, tc := range []struct{ name, src string }{{"select-only", benchSelectOnly}, {"tpcb-like", benchTPCB}} {
		s, err := Parse(tc.name, tc.src, ParseOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, protocol := range []string{"simple", "prepared"} {
			b.Run(tc.name+"/"+protocol, func(b *testing.B) {
				env := &benchEnv{vars: NewVars(), rand: NewRand(1)}
				env.vars.Set("scale", Int(10))
				placeholder := func(int) string { return "?" }
				var args []any
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					for _, c := range s.Commands {
						switch c.Kind {
						case SetCommand:
							v, err := Eval(c.Expr, env)
							if err != nil {
								b.Fatal(err)
							}
							env.vars.Set(c.Var, v)
						case SQLCommand:
							q := &c.Queries[0]
							if protocol == "simple" {
								_ = q.Interpolate(env.vars.Text)
								continue
							}
							_, names := q.Parameterize(placeholder)
							args = args[:0]
							for _, n := range names {
								v, _, _ := env.vars.Value(n)
								i, _ := v.AsInt()
								args = append(args, i)
							}
						}
					}
				}
			})
		}
	}
}
