package workload

import "github.com/dbarena/dbarena/engine"

// FuncRows is a RowSource of n rows, row i made by row(i) (i from 0). The
// slice row returns may be reused between calls.
func FuncRows(n int, row func(i int) []any) engine.RowSource {
	return &funcRows{n: n, row: row}
}

type funcRows struct {
	n, i int
	row  func(i int) []any
	cur  []any
}

func (s *funcRows) Next() bool {
	if s.i >= s.n {
		return false
	}
	s.cur = s.row(s.i)
	s.i++
	return true
}

func (s *funcRows) Values() ([]any, error) { return s.cur, nil }
func (s *funcRows) Err() error             { return nil }
