package oltp

import "github.com/dbarena/dbarena/engine"

// dataGen generates the initial rows of one table. Rows are a pure
// function of (--seed-data, table number, batch) and the options: batch b
// holds ids b*batchRows+1 … min((b+1)*batchRows, table-size), and its own
// random source is seeded from (seed, table, batch) alone, so batches can
// be loaded in any order, in parallel, or again after a failure.
//
// Each row is (id, k, c, pad) as sysbench's prepare writes it: k drawn
// from the --rand-type distribution over [1, table-size] (sysbench uses
// sysbench.rand.default there, so with the default "special" type k is
// concentrated around table-size/2), c and pad the 119- and 59-character
// digit templates.
type dataGen struct {
	seed      uint64
	table     int
	tableSize int
	dist      distConfig
}

// batchSeed derives the random seed of one batch of one table.
func batchSeed(seed uint64, table, batch int) uint64 {
	return splitmix64(splitmix64(seed^0x5eed_da7a) ^ uint64(table)<<32 ^ uint64(batch))
}

func (g dataGen) rows(batch int) engine.RowSource {
	first := int64(batch)*batchRows + 1
	last := first + batchRows - 1
	if last > int64(g.tableSize) {
		last = int64(g.tableSize)
	}
	s := &rowSource{
		rng:       newRNG(batchSeed(g.seed, g.table, batch), g.dist),
		next:      first,
		last:      last,
		tableSize: uint32(g.tableSize),
	}
	s.row = s.vals[:]
	return s
}

// rowSource yields the rows of one batch. Values reuses its slice; c and
// pad of one row share one string allocation.
type rowSource struct {
	rng       *rng
	next      int64
	last      int64
	tableSize uint32
	vals      [4]any
	row       []any
	buf       [CLen + PadLen]byte
}

func (s *rowSource) Next() bool {
	if s.next > s.last {
		return false
	}
	s.rng.fillDigits(s.buf[:CLen], CGroups)
	s.rng.fillDigits(s.buf[CLen:], PadGroups)
	k := s.rng.def(1, s.tableSize)
	str := string(s.buf[:])
	s.vals[0] = s.next
	s.vals[1] = int64(k)
	s.vals[2] = str[:CLen]
	s.vals[3] = str[CLen:]
	s.next++
	return true
}

func (s *rowSource) Values() ([]any, error) { return s.row, nil }

func (s *rowSource) Err() error { return nil }
