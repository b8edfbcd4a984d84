package postgres

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// scanPlans keeps, per result column of a prepared statement, the scan
// plan of the last destination type it was decoded into, as pgx.Rows does
// within one query: planning a scan (pgtype.Map.PlanScan) costs more than
// most scans. A plan is kept with the column's type, format and the
// destination's type, and made again when any of them changes.
type scanPlans struct {
	cols []scanPlan
}

type scanPlan struct {
	oid    uint32
	format int16
	dst    reflect.Type
	plan   pgtype.ScanPlan
}

// scan decodes src, column i of a row described by fd, into dst.
func (p *scanPlans) scan(m *pgtype.Map, i int, fd *pgconn.FieldDescription, src []byte, dst any) error {
	if dst == nil {
		return nil // as pgtype.Map.Scan: the column is skipped
	}
	if f, ok := dst.(*float64); ok && fd.DataTypeOID == pgtype.NumericOID && fd.Format == pgtype.BinaryFormatCode {
		if v, ok := numericFloat64(src); ok {
			*f = v
			return nil
		}
	}
	if i >= len(p.cols) {
		p.cols = append(p.cols, make([]scanPlan, i+1-len(p.cols))...)
	}
	c := &p.cols[i]
	t := reflect.TypeOf(dst)
	if c.plan == nil || c.oid != fd.DataTypeOID || c.format != fd.Format || c.dst != t {
		*c = scanPlan{oid: fd.DataTypeOID, format: fd.Format, dst: t, plan: m.PlanScan(fd.DataTypeOID, fd.Format, dst)}
	}
	err := c.plan.Scan(src, dst)
	if errors.Is(err, pgtype.ErrScanTargetTypeChanged) {
		// A plan that depends on more than dst's type (what an `any`
		// holds, say): plan again, as pgx.Rows does.
		c.plan = m.PlanScan(fd.DataTypeOID, fd.Format, dst)
		err = c.plan.Scan(src, dst)
	}
	return err
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// numericFloat64 decodes a NUMERIC in PostgreSQL's binary format into the
// float64 nearest to it, as strconv.ParseFloat of its text would, where
// that can be done exactly without big numbers: the digits form an integer
// below 2^53 and the power of ten scaling it is at most 22, both exact
// in a float64, so one IEEE multiplication or division of them gives the
// correctly rounded result. ok is false for NULL, NaN, infinities, malformed input
// and every value outside that range; the caller then decodes it the
// general way.
func numericFloat64(src []byte) (v float64, ok bool) {
	if len(src) < 8 {
		return 0, false
	}
	ndigits := int(binary.BigEndian.Uint16(src))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	if len(src) != 8+2*ndigits || (sign != 0 && sign != 0x4000) {
		return 0, false // NaN, ±Infinity (0xC000, 0xD000, 0xF000) or malformed
	}
	if ndigits == 0 {
		return 0, true
	}
	// The value is Σ digit[j] × 10000^(weight−j), j < ndigits: an integer
	// mantissa of ndigits base-10000 digits times 10000^(weight−ndigits+1).
	var mant uint64
	for j := 0; j < ndigits; j++ {
		d := uint64(binary.BigEndian.Uint16(src[8+2*j:]))
		if d > 9999 || mant > (math.MaxUint64-9999)/10000 {
			return 0, false
		}
		mant = mant*10000 + d
	}
	exp := 4 * (weight - ndigits + 1) // power of ten
	// The last base-10000 digit pads the scale with zeros (0.60 is
	// 6000 × 10^-4): drop them, so that more values fit below 2^53.
	for mant != 0 && mant%10 == 0 {
		mant /= 10
		exp++
	}
	if mant >= 1<<53 {
		return 0, false
	}
	f := float64(mant)
	switch {
	case exp == 0:
	case exp > 0 && exp < len(pow10):
		f *= pow10[exp]
	case exp < 0 && -exp < len(pow10):
		f /= pow10[-exp]
	default:
		return 0, false
	}
	if sign == 0x4000 {
		f = -f
	}
	if math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
