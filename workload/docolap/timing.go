package docolap

import (
	"context"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// Docolap's queries can be timed by the analytic timing model.
var _ workload.Answerer = (*Docolap)(nil)

// AnswerOps implements workload.Answerer: --query's queries, in order.
func (w *Docolap) AnswerOps() ([]string, error) {
	qs, err := w.queryList()
	if err != nil {
		return nil, &workload.OptionError{Flag: "query", Value: w.opts.query, Err: err.Error()}
	}
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.Name
	}
	return names, nil
}

// Answer implements workload.Answerer: query op's rows on c, an SQL
// connection.
func (w *Docolap) Answer(ctx context.Context, c engine.Conn, op string) ([][]string, error) {
	return AnswerWith(ctx, w, c, op)
}

// AnswerWith runs query op on c through run, a family's Querier, and
// returns its rows as workload.Answerer does: the family implementations'
// Answer.
func AnswerWith(ctx context.Context, run Querier, c engine.Conn, op string) ([][]string, error) {
	rows, err := run.RunQuery(ctx, c, op)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out, nil
}
