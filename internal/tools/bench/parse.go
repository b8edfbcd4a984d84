package main

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The peer tools' summaries, parsed from their output. Each parser takes
// the whole output (stdout and stderr together, as the tools interleave
// them) and fails when a figure it needs is not there.

// pgbenchSummary is what pgbench prints at the end of a run.
type pgbenchSummary struct {
	Transactions int64   // "number of transactions actually processed"
	Failed       int64   // "number of failed transactions" (0 when absent)
	TPS          float64 // "tps = … (without initial connection time)"
}

func parsePgbench(out string) (pgbenchSummary, error) {
	var s pgbenchSummary
	var haveTxns, haveTPS bool
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "number of transactions actually processed: "); ok {
			n, err := strconv.ParseInt(firstField(v, "/"), 10, 64)
			if err != nil {
				return s, fmt.Errorf("pgbench: %q: %w", line, err)
			}
			s.Transactions, haveTxns = n, true
		}
		if v, ok := strings.CutPrefix(line, "number of failed transactions: "); ok {
			n, err := strconv.ParseInt(firstField(v, " "), 10, 64)
			if err != nil {
				return s, fmt.Errorf("pgbench: %q: %w", line, err)
			}
			s.Failed = n
		}
		if v, ok := strings.CutPrefix(line, "tps = "); ok {
			f, err := strconv.ParseFloat(firstField(v, " "), 64)
			if err != nil {
				return s, fmt.Errorf("pgbench: %q: %w", line, err)
			}
			s.TPS, haveTPS = f, true
		}
	}
	if !haveTxns || !haveTPS {
		return s, errors.New("pgbench: no summary (transactions processed, tps) in its output")
	}
	return s, nil
}

// sysbenchSummary is the SQL statistics of a sysbench run.
type sysbenchSummary struct {
	Transactions int64
	Queries      int64
	QPS          float64
	Errors       int64 // "ignored errors"
}

func parseSysbench(out string) (sysbenchSummary, error) {
	var s sysbenchSummary
	var haveQ, haveT bool
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch {
		case f[0] == "queries:":
			n, err1 := strconv.ParseInt(f[1], 10, 64)
			var rate float64
			var err2 error
			if len(f) >= 3 {
				rate, err2 = strconv.ParseFloat(strings.TrimPrefix(f[2], "("), 64)
			} else {
				err2 = errors.New("no rate")
			}
			if err := errors.Join(err1, err2); err != nil {
				return s, fmt.Errorf("sysbench: %q: %w", strings.TrimSpace(line), err)
			}
			s.Queries, s.QPS, haveQ = n, rate, true
		case f[0] == "transactions:":
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return s, fmt.Errorf("sysbench: %q: %w", strings.TrimSpace(line), err)
			}
			s.Transactions, haveT = n, true
		case f[0] == "ignored" && len(f) >= 3 && f[1] == "errors:":
			s.Errors, _ = strconv.ParseInt(f[2], 10, 64)
		}
	}
	if !haveQ || !haveT {
		return s, errors.New("sysbench: no SQL statistics (transactions, queries) in its output")
	}
	return s, nil
}

// goTPCCounts adds up go-tpc's per-type lines of one report, "[Summary]"
// or "[Current]": "[Summary] NEW_ORDER - Takes(s): 6.0, Count: 2107, …".
// Lines of a type ending in _ERR count failed transactions.
type goTPCCounts struct {
	Transactions int64 // all five types, failures excluded
	Errors       int64
	NewOrders    int64 // NEW_ORDER, its rolled-back ones included (as go-tpc counts them)
}

func parseGoTPC(out, prefix string) (goTPCCounts, error) {
	var c goTPCCounts
	tag := "[" + prefix + "]"
	found := false
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != tag || f[2] != "-" {
			continue
		}
		_, rest, ok := strings.Cut(line, "Count: ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(firstField(rest, ","), 10, 64)
		if err != nil {
			return c, fmt.Errorf("go-tpc: %q: %w", strings.TrimSpace(line), err)
		}
		found = true
		switch op := f[1]; {
		case strings.HasSuffix(op, "_ERR"):
			c.Errors += n
		default:
			c.Transactions += n
			if op == "NEW_ORDER" {
				c.NewOrders += n
			}
		}
	}
	if !found {
		return c, fmt.Errorf("go-tpc: no %s lines in its output", tag)
	}
	return c, nil
}

// parseGoTPCtpmC is go-tpc's final "tpmC: 21181.5, tpmTotal: …" figure,
// over its whole run.
func parseGoTPCtpmC(out string) (float64, error) {
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "tpmC: "); ok {
			return strconv.ParseFloat(firstField(v, ","), 64)
		}
	}
	return 0, errors.New("go-tpc: no final tpmC line")
}

// goYCSBSummary is go-ycsb's final report, after "Run finished".
type goYCSBSummary struct {
	Reads      int64 // the READ line's count (its warm-up excluded)
	ReadErrors int64 // READ_ERROR
	Connected  bool  // "Connected to MongoDB!" seen
}

func parseGoYCSB(out string) (goYCSBSummary, error) {
	var s goYCSBSummary
	finished := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Connected to MongoDB!") {
			s.Connected = true
		}
		if strings.HasPrefix(line, "Run finished") {
			finished, s.Reads, s.ReadErrors = true, 0, 0
			continue
		}
		if !finished {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || f[1] != "-" {
			continue
		}
		_, rest, ok := strings.Cut(line, "Count: ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(firstField(rest, ","), 10, 64)
		if err != nil {
			return s, fmt.Errorf("go-ycsb: %q: %w", line, err)
		}
		switch f[0] {
		case "READ":
			s.Reads = n
		case "READ_ERROR":
			s.ReadErrors = n
		}
	}
	if !finished || s.Reads == 0 {
		return s, errors.New("go-ycsb: no READ count after \"Run finished\" in its output")
	}
	return s, nil
}

// dbarenaLoadSeconds reads "rows in after 45.195s" from dbarena prepare's
// summary line ("prepared … rows in after D, …").
func dbarenaLoadSeconds(out string) (float64, error) {
	for line := range strings.Lines(out) {
		if !strings.HasPrefix(line, "prepared ") {
			continue
		}
		_, rest, ok := strings.Cut(line, "rows in after ")
		if !ok {
			break
		}
		d, err := time.ParseDuration(strings.TrimSpace(firstField(rest, ",")))
		if err != nil {
			return 0, fmt.Errorf("dbarena prepare: %q: %w", strings.TrimSpace(line), err)
		}
		return d.Seconds(), nil
	}
	return 0, errors.New("dbarena prepare: no \"rows in after\" in its summary")
}

func firstField(s, sep string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, sep); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// parsePsqlCopy is the row count of psql's "COPY 1000000" line, which
// `psql -c "\copy …"` prints once the server has taken the rows.
func parsePsqlCopy(out string) (int64, error) {
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "COPY "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("psql: %q: %w", strings.TrimSpace(line), err)
			}
			return n, nil
		}
	}
	return 0, errors.New("psql: no \"COPY n\" line in its output")
}

// mongoloadLine is the line of tab-separated figures mongoload prints:
// documents, JSON bytes and BSON bytes after reading a dump (-count,
// -encode), and after loading also its load and index seconds and the
// server's version.
type mongoloadLine struct {
	Docs, JSONBytes, BSONBytes int64
	LoadS, IndexS              float64
	Version                    string
	Loaded                     bool // the load's six fields were there
}

func parseMongoload(out string) (mongoloadLine, error) {
	var m mongoloadLine
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.Split(strings.TrimRight(lines[i], "\r"), "\t")
		if len(f) != 3 && len(f) != 6 {
			continue
		}
		var errs []error
		for j, dst := range []*int64{&m.Docs, &m.JSONBytes, &m.BSONBytes} {
			var err error
			*dst, err = strconv.ParseInt(f[j], 10, 64)
			errs = append(errs, err)
		}
		if len(f) == 6 {
			var e1, e2 error
			m.LoadS, e1 = strconv.ParseFloat(f[3], 64)
			m.IndexS, e2 = strconv.ParseFloat(f[4], 64)
			m.Version, m.Loaded = f[5], true
			errs = append(errs, e1, e2)
		}
		if err := errors.Join(errs...); err != nil {
			return m, fmt.Errorf("mongoload: %q: %w", lines[i], err)
		}
		return m, nil
	}
	return m, errors.New("mongoload: no line of figures in its output")
}
