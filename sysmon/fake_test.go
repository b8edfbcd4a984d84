package sysmon

import (
	"context"
	"errors"
	"strings"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all" // the engines' server statistics
)

// fakeConn answers statements by the first registered fragment they
// contain, so that Open and the engines' sources it opens can be tested
// without a server.
type fakeConn struct {
	engine.Conn // nil: the sources call only QueryRows
	dialect     string
	answers     []answer
	queries     []string
}

type answer struct {
	fragment string
	rows     [][]any
	err      error
}

func (f *fakeConn) on(fragment string, err error, rows ...[]any) *fakeConn {
	f.answers = append(f.answers, answer{fragment, rows, err})
	return f
}

func (f *fakeConn) QueryRows(_ context.Context, sql string, _ []any, fn func(row []any) error) error {
	f.queries = append(f.queries, sql)
	for _, a := range f.answers {
		if strings.Contains(sql, a.fragment) {
			if a.err != nil {
				return a.err
			}
			for _, r := range a.rows {
				if err := fn(r); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return errors.New("fakeConn: unexpected statement: " + sql)
}

func (f *fakeConn) Dialect() engine.SQLDialect { return fakeDialect{name: f.dialect} }

// fakeDialect has only a name and an error classification; sysmon calls
// nothing else.
type fakeDialect struct {
	engine.SQLDialect
	name string
}

func (d fakeDialect) Name() string { return d.name }

// errConnLost is what a fakeConn answers once its connection is gone.
var errConnLost = errors.New("fakeConn: connection lost")

func (d fakeDialect) Classify(err error) engine.ErrorClass {
	switch {
	case errors.Is(err, errConnLost):
		return engine.ClassConnLost
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return engine.ClassCanceled
	}
	return engine.ClassOther
}

// pgIdentity answers the PostgreSQL source's first statement.
func pgIdentity(backend int64, addr string, start float64, version int64) []any {
	return []any{backend, addr, start, version, true}
}
