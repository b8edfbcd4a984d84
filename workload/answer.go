package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

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
