package docolap

import (
	"context"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// answerOps are the queries the analytic timing model runs
// (Spec.Answers): --query's, in order.
func (w *Docolap) answerOps() ([]string, error) { return jsondoc.OpNames(queries, w.opts.query) }

// AnswerWith runs query op on c through run, a family's Querier, and
// returns its rows as workload.Answers' Answer does: every family's
// Answer (on SQL engines through Docolap.RunQuery).
func AnswerWith(ctx context.Context, run Querier, c engine.Conn, op string) ([][]string, error) {
	return jsondoc.Answer(ctx, run, c, op)
}
