package lang_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload/script/lang"
)

// env is a client's state: its variables and its generator.
type env struct {
	vars *lang.Vars
	rand *lang.Rand
}

func (e env) Variable(name string) (lang.Value, bool, error) { return e.vars.Value(name) }
func (e env) Rand() *lang.Rand                               { return e.rand }
func (e env) Debug(v lang.Value)                             { fmt.Println("debug:", v.Debug()) }

func Example() {
	src := `\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid \gset
\if :abalance < 0
\set bonus debug(hash(:aid, 7) % 100)
\endif
`
	script, err := lang.Parse("tpcb-part.sql", src, lang.ParseOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range script.Commands {
		fmt.Printf("%d:%d %s\n", c.Pos.Line, c.Pos.Col, c.Kind)
	}
	e := env{vars: lang.NewVars(), rand: lang.NewRand(1)}
	e.vars.SetText("scale", "10")
	aid, _ := lang.Eval(script.Commands[0].Expr, e)
	fmt.Println("aid in range:", aid.Kind(), aid.String() != "")
	q, params := script.Commands[2].Queries[0].Parameterize(func(i int) string { return fmt.Sprintf("$%d", i) })
	fmt.Println(q, params)

	e.vars.Set("aid", lang.Int(42))
	bonus, _ := lang.ParseExpr("debug(hash(:aid, 7) % 100)")
	v, _ := lang.Eval(bonus, e)
	fmt.Println(v)

	_, err = lang.Parse("bad.sql", "\\set x 1 +* 2\n", lang.ParseOptions{})
	fmt.Println(err)
	// Output:
	// 1:1 set
	// 2:1 set
	// 3:1 sql
	// 4:1 sql
	// 5:1 if
	// 6:1 set
	// 7:1 endif
	// aid in range: int true
	// UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2 [delta aid]
	// debug: int 76
	// 76
	// bad.sql:1:11: syntax error in command "set"
	// \set x 1 +* 2
	//           ^ error found here
}
