package workload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/dbarena/dbarena/engine"
)

// Answerer is a workload whose ops are analytic queries that the runner
// can time itself (the analytic timing model, --tries): it runs one op by
// name on a connection and returns the answer's rows, each value as text
// written alike by every engine, so that answers compare across engines.
type Answerer interface {
	// AnswerOps are the ops the timing model runs, in order (the
	// workload's options may choose them).
	AnswerOps() ([]string, error)
	// Answer runs op on c and returns its rows. It honours ctx's
	// deadline (the timing model's --query-timeout).
	Answer(ctx context.Context, c engine.Conn, op string) ([][]string, error)
}

// HashRows is the hash of rows in canonical text, the same for the same
// rows in the same order whatever engine returned them: each value
// quoted as a Go string literal, values separated by tabs, each row
// ended by a newline; SHA-256, the first 16 bytes in hexadecimal.
func HashRows(rows [][]string) string {
	h := sha256.New()
	var buf []byte
	for _, row := range rows {
		buf = buf[:0]
		for i, v := range row {
			if i > 0 {
				buf = append(buf, '\t')
			}
			buf = strconv.AppendQuote(buf, v)
		}
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
