package report_test

import (
	"os"

	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner/timing"
)

func sec(v float64) *float64 { return &v }

// A run of three tries per query: A's first try was lukewarm, its hot
// time the best of the other two; B's second try timed out and is null.
func ExampleTries() {
	run := &result.Run{Status: result.StatusComplete, Tries: &result.Tries{Count: 3, QueryTimeoutS: 60, Queries: []result.QueryTries{
		{Name: "A", Tries: []result.Try{
			{Label: result.LabelLukewarm, S: sec(2.5), Rows: 120, Hash: "3f2a9c0d1e2b4a5c6d7e8f9012345678"},
			{Label: result.LabelHot, S: sec(1.25), Rows: 120, Hash: "3f2a9c0d1e2b4a5c6d7e8f9012345678"},
			{Label: result.LabelHot, S: sec(1.5), Rows: 120, Hash: "3f2a9c0d1e2b4a5c6d7e8f9012345678"},
		}},
		{Name: "B", Tries: []result.Try{
			{Label: result.LabelLukewarm, S: sec(0.75), Rows: 14, Hash: "0123456789abcdef0123456789abcdef"},
			{Label: result.LabelHot, Error: "query B timed out after 1m0s (--query-timeout)"},
			{Label: result.LabelHot, S: sec(0.5), Rows: 14, Hash: "0123456789abcdef0123456789abcdef"},
		}},
	}}}
	report.Tries(os.Stdout, run)
	os.Stdout.WriteString(report.TryLine(timing.TryEvent{Query: "B", N: 2, Of: 3, Try: run.Tries.Queries[1].Tries[1]}) + "\n")
	// Output:
	// Queries (3 tries each, query timeout 60s, status: complete):
	//     query  first try            hot (best)  spread        rows  answer        failed
	//     A      2.500s     lukewarm  1.250s      1.250–1.500s  120   3f2a9c0d1e2b  0
	//     B      0.750s     lukewarm  0.500s      0.500–0.500s  14    0123456789ab  1
	//     query B try 2: query B timed out after 1m0s (--query-timeout)
	// [ query B 2/3 hot ] failed: query B timed out after 1m0s (--query-timeout)
}
