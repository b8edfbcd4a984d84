package export

import "slices"

// tries is one line per try of every query of the runs in the analytic
// timing model: its label (cold, lukewarm, hot), seconds (empty when it
// failed: null, never 0), error, and its answer's rows and hash.
func tries(inputs []Input) *Table {
	t := &Table{Header: append(slices.Clone(ids), "query", "try", "try_label", "s", "error", "rows", "hash")}
	for _, in := range inputs {
		for i := range in.File.Runs {
			r := &in.File.Runs[i]
			if r.Tries == nil {
				continue
			}
			for _, q := range r.Tries.Queries {
				for n, tr := range q.Tries {
					var s any
					if tr.S != nil {
						s = *tr.S
					}
					row := append(idValues(in, r), q.Name, int64(n+1), tr.Label, s, tr.Error, tr.Rows, tr.Hash)
					t.Rows = append(t.Rows, row)
				}
			}
		}
	}
	return t
}
