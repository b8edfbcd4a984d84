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
