package ce

import (
	"testing"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
)

// BenchmarkNext measures the client's cost of drawing one transaction's
// inputs, over the mix.
func BenchmarkNext(b *testing.B) {
	e := testEnv(b, 5)
	g := e.NewGenerator(-1)
	r := gen.NewRand(1, 1, 1)
	b.ReportAllocs()
	for b.Loop() {
		g.Next(r)
	}
}
