package oltp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/workload"
)

// options are the sysbench 1.0.20 oltp_common.lua options (plus the PRNG
// options of sb_rand.c that shape the data and the access pattern), with
// sysbench's names and defaults. sysbench spells them with underscores or
// dashes alike; so does dbarena (underscores are normalized to dashes).
type options struct {
	tables          int
	tableSize       int
	rangeSize       int
	pointSelects    int
	simpleRanges    int
	sumRanges       int
	orderRanges     int
	distinctRanges  int
	indexUpdates    int
	nonIndexUpdates int
	deleteInserts   int
	rangeSelects    bool
	skipTrx         bool
	autoInc         bool
	createSecondary bool

	randType       string
	randSpecIter   int
	randSpecPct    int
	randSpecRes    int
	randParetoH    float64
	randZipfianExp float64

	seedData uint64

	// oltp_read_write_pct only
	readPercent  int
	writePercent int
}

// Defaults, as in sysbench 1.0.20. --rand-type defaults to "special" in
// the 1.0 series (sysbench 1.1 dropped "special" and defaults to
// "uniform"); results published with sysbench 1.0.x without --rand-type
// used "special".
const (
	defTables          = 1
	defTableSize       = 10000
	defRangeSize       = 100
	defPointSelects    = 10
	defSimpleRanges    = 1
	defSumRanges       = 1
	defOrderRanges     = 1
	defDistinctRanges  = 1
	defIndexUpdates    = 1
	defNonIndexUpdates = 1
	defDeleteInserts   = 1
	defRandType        = distSpecial
	defRandSpecIter    = 12
	defRandSpecPct     = 1
	defRandSpecRes     = 75
	defRandParetoH     = 0.2
	defRandZipfianExp  = 0.8
	defReadPercent     = 80
	defWritePercent    = 20
)

// maxTableSize keeps ids (and id + range-size - 1) inside a signed 32-bit
// INTEGER column, as sysbench's schema requires.
const maxTableSize = math.MaxInt32

func newFlagSet(name string, v *variant, o *options) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(n, "_", "-"))
	})
	fs.IntVar(&o.tables, "tables", defTables, "number of tables")
	fs.IntVar(&o.tableSize, "table-size", defTableSize, "number of rows per table")
	fs.IntVar(&o.rangeSize, "range-size", defRangeSize, "range size for range SELECT queries")
	fs.IntVar(&o.pointSelects, "point-selects", defPointSelects, "number of point SELECT queries per transaction (oltp_point_select always runs 1)")
	fs.IntVar(&o.simpleRanges, "simple-ranges", defSimpleRanges, "number of simple range SELECT queries per transaction")
	fs.IntVar(&o.sumRanges, "sum-ranges", defSumRanges, "number of SELECT SUM() queries per transaction")
	fs.IntVar(&o.orderRanges, "order-ranges", defOrderRanges, "number of SELECT ORDER BY queries per transaction")
	fs.IntVar(&o.distinctRanges, "distinct-ranges", defDistinctRanges, "number of SELECT DISTINCT queries per transaction")
	fs.IntVar(&o.indexUpdates, "index-updates", defIndexUpdates, "number of UPDATE index queries per transaction")
	fs.IntVar(&o.nonIndexUpdates, "non-index-updates", defNonIndexUpdates, "number of UPDATE non-index queries per transaction")
	fs.IntVar(&o.deleteInserts, "delete-inserts", defDeleteInserts, "number of DELETE/INSERT combinations per transaction")
	fs.BoolVar(&o.rangeSelects, "range-selects", true, "enable/disable all range SELECT queries")
	fs.BoolVar(&o.skipTrx, "skip-trx", false, "don't start explicit transactions; run every query in autocommit mode")
	fs.BoolVar(&o.autoInc, "auto-inc", true, "use an auto-increment id column (SERIAL, AUTO_INCREMENT …); when disabled, ids are client-generated")
	fs.BoolVar(&o.createSecondary, "create-secondary", true, "create a secondary index on k in addition to the primary key")
	fs.StringVar(&o.randType, "rand-type", defRandType, "random numbers distribution {"+strings.Join(distNames, ", ")+"} for ids and k")
	fs.IntVar(&o.randSpecIter, "rand-spec-iter", defRandSpecIter, "number of iterations for the special and gaussian distributions")
	fs.IntVar(&o.randSpecPct, "rand-spec-pct", defRandSpecPct, "percentage of the entire range where 'special' values fall in the special distribution")
	fs.IntVar(&o.randSpecRes, "rand-spec-res", defRandSpecRes, "percentage of 'special' values to use in the special distribution")
	fs.Float64Var(&o.randParetoH, "rand-pareto-h", defRandParetoH, "shape parameter for the Pareto distribution")
	fs.Float64Var(&o.randZipfianExp, "rand-zipfian-exp", defRandZipfianExp, "shape parameter (exponent, theta) for the Zipfian distribution")
	fs.Uint64Var(&o.seedData, "seed-data", 0, "seed of the initial data: the same seed and options always load the same rows (0 is an ordinary seed; the run seed does not change the data)")
	if v.kind == EventPct {
		fs.IntVar(&o.readPercent, "read-percent", defReadPercent, "percentage of events that are one point select")
		fs.IntVar(&o.writePercent, "write-percent", defWritePercent, "percentage of events that are one index update")
	}
	// Every test accepts all of oltp_common's options, as sysbench does,
	// so that a sysbench command line works unchanged; those the test
	// does not use are hidden from `dbarena list` and --help.
	for _, name := range v.unused() {
		if err := fs.MarkHidden(name); err != nil {
			panic(err) // a flag defined above
		}
	}
	return fs
}

// unused are the oltp_common options the variant accepts but whose value
// changes nothing it does.
func (v *variant) unused() []string {
	var out []string
	if !v.points || v.onePoint {
		out = append(out, "point-selects")
	}
	if !v.ranges {
		out = append(out, "range-size", "range-selects", "simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges")
	}
	if !v.idxUpdates {
		out = append(out, "index-updates")
	}
	if !v.nonIdx {
		out = append(out, "non-index-updates")
	}
	if !v.delIns {
		out = append(out, "delete-inserts")
	}
	if !v.trx {
		out = append(out, "skip-trx")
	}
	return out
}

// MaxTables bounds --tables: sbtest1 to sbtest100000.
const MaxTables = 100_000

// validate reports every bad option at once; each error is a
// *workload.OptionError naming the flag and its value.
func (o *options) validate(v *variant) []error {
	var errs []error
	bad := func(flag string, value any, format string, args ...any) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(value), Err: fmt.Sprintf(format, args...)})
	}
	if o.tables < 1 {
		bad("tables", o.tables, "must be >= 1")
	} else if o.tables > MaxTables {
		bad("tables", o.tables, "at most %d", MaxTables)
	}
	if o.tableSize < 1 || o.tableSize > maxTableSize {
		bad("table-size", o.tableSize, "must be in [1, %d]", maxTableSize)
	}
	if o.rangeSize < 1 {
		bad("range-size", o.rangeSize, "must be >= 1")
	} else if v.usesRanges(o) && o.tableSize >= 1 && o.rangeSize > o.tableSize {
		bad("range-size", o.rangeSize, "must be <= --table-size (%d)", o.tableSize)
	}
	for _, c := range []struct {
		flag string
		n    int
	}{
		{"point-selects", o.pointSelects},
		{"simple-ranges", o.simpleRanges},
		{"sum-ranges", o.sumRanges},
		{"order-ranges", o.orderRanges},
		{"distinct-ranges", o.distinctRanges},
		{"index-updates", o.indexUpdates},
		{"non-index-updates", o.nonIndexUpdates},
		{"delete-inserts", o.deleteInserts},
	} {
		if c.n < 0 {
			bad(c.flag, c.n, "must be >= 0")
		}
	}
	known := false
	for _, n := range distNames {
		known = known || o.randType == n
	}
	if !known {
		bad("rand-type", strconv.Quote(o.randType), "must be one of %s", strings.Join(distNames, ", "))
	}
	if o.randSpecIter < 1 {
		bad("rand-spec-iter", o.randSpecIter, "must be >= 1")
	}
	if o.randSpecPct < 0 || o.randSpecPct > 100 {
		bad("rand-spec-pct", o.randSpecPct, "must be in [0, 100]")
	}
	if o.randSpecRes < 0 || o.randSpecRes > 100 {
		bad("rand-spec-res", o.randSpecRes, "must be in [0, 100]")
	}
	if !(o.randParetoH > 0 && o.randParetoH < 1) {
		bad("rand-pareto-h", o.randParetoH, "must be in (0, 1)")
	}
	if !(o.randZipfianExp >= 0) || math.IsInf(o.randZipfianExp, 0) {
		bad("rand-zipfian-exp", o.randZipfianExp, "must be a finite number >= 0")
	}
	if v.kind == EventPct {
		okR := o.readPercent >= 0 && o.readPercent <= 100
		okW := o.writePercent >= 0 && o.writePercent <= 100
		if !okR {
			bad("read-percent", o.readPercent, "must be in [0, 100]")
		}
		if !okW {
			bad("write-percent", o.writePercent, "must be in [0, 100]")
		}
		if okR && okW && o.readPercent+o.writePercent != 100 {
			bad("write-percent", o.writePercent, "--read-percent (%d) + --write-percent must be 100", o.readPercent)
		}
	}
	return errs
}

// distConfig returns the precomputed distribution of the options. It
// assumes validate found nothing wrong with the --rand-* options.
func (o *options) distConfig() (distConfig, error) {
	return newDistConfig(o.randType, o.randSpecIter, o.randSpecPct, o.randSpecRes, o.randParetoH, o.randZipfianExp)
}
