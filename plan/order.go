package plan

import (
	"math/rand/v2"
	"time"
)

// Step is one run of the plan: a cell's repetition.
type Step struct {
	// Cell indexes Plan.Cells.
	Cell int
	// Rep is the repetition, from 1; it is also the round the step
	// belongs to.
	Rep int
}

// Order is the plan's execution order: Repetitions rounds one after the
// other, each visiting every cell once, in an order shuffled afresh for
// every round. Drift over time (a warming cache, a filling disk, a
// neighbour's load) then falls on every cell alike instead of on whichever
// ran last.
//
// The shuffle of round r is a PCG stream seeded with (Seed, r), so the
// order is the same for the same seed and cells, and adding rounds leaves
// the earlier ones as they were.
func (p *Plan) Order() []Step {
	out := make([]Step, 0, len(p.Cells)*p.Repetitions)
	for r := 1; r <= p.Repetitions; r++ {
		out = appendRound(out, len(p.Cells), p.Seed, r)
	}
	return out
}

func appendRound(out []Step, cells int, seed uint64, round int) []Step {
	rng := rand.New(rand.NewPCG(seed, uint64(round)))
	for _, c := range rng.Perm(cells) {
		out = append(out, Step{Cell: c, Rep: round})
	}
	return out
}

// Estimate is the time the plan's runs take: warm-ups and measured
// phases of every repetition of every cell. Preparing data and starting
// servers come on top, and so do the cells of the analytic timing model
// (tries), which run until each query has had its tries.
func (p *Plan) Estimate() time.Duration {
	var d time.Duration
	for _, c := range p.Cells {
		if c.Workload.Run.Tries != nil {
			continue // the analytic timing model runs until its tries are done
		}
		d += time.Duration(p.Repetitions) * c.runTime()
	}
	return d
}

// runTime is one repetition of c: its warm-up and measured phase.
func (c Cell) runTime() time.Duration { return c.Workload.Run.Warmup + c.Workload.Run.Duration }
