package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/markdown"
	"github.com/dbarena/dbarena/result"
)

// This file compares runs of the analytic timing model (result.Tries) as
// the PostgreSQL/MongoDB study tabulates its OLAP queries: per query, each
// column's time and the % speedup (S−F)/S, S the slower time and F the
// faster, cold (the first try) and hot (the best of the others), with the
// spread of the tries; and whether the columns' answers agree.

// TriesTable is the comparison of one workload's runs in the timing
// model.
type TriesTable struct {
	Workload string
	// Tries is the number of tries of each query (the first file's).
	Tries int
	// Labels name the columns; Baseline is the index of the column the
	// speedups are against.
	Labels   []string
	Baseline int
	// FirstTries says how each column's first tries ran (cold, lukewarm;
	// several kinds joined by ", ").
	FirstTries []string
	// ColdModes are each column's cold modes as its files record them
	// (the run option cold: restart, drop-caches, none; several joined
	// by ", "; "" in files that predate it).
	ColdModes []string
	Rows      []TriesRow
	// Storage is each column's tables' size on disk, summed over the
	// workload's tables, as its first file that records it says (nil
	// for a column whose files do not).
	Storage []*result.TableStorage
	// Differences are what differs between the columns besides the
	// figures (server settings, versions), as under Build's tables.
	Differences []Difference
	// Notes name the queries whose answers differ, between columns or
	// between one column's tries, and runs left out.
	Notes []string
}

// TriesRow is one query's figures.
type TriesRow struct {
	Query string
	// Cold and Hot are per column.
	Cold, Hot []Timing
}

// Timing is one column's time for a query: the best of its tries of one
// kind (first tries for cold, the others for hot), with the lowest and
// highest of them.
type Timing struct {
	// Best is nil when every such try failed (or there were none).
	Best   *float64
	Lo, Hi float64
	// N counts the tries that succeeded, Failed those that did not.
	N, Failed int
}

// Speedup is (S−F)/S in percent of two timings, S the slower and F the
// faster, and which of the two (0: a, 1: b) is the faster; ok is false
// when either has no time.
func Speedup(a, b Timing) (pct float64, faster int, ok bool) {
	if a.Best == nil || b.Best == nil {
		return 0, 0, false
	}
	s, f := *a.Best, *b.Best
	if f > s {
		s, f, faster = f, s, 0
	} else {
		faster = 1
	}
	if s == 0 {
		return 0, faster, true
	}
	return (s - f) / s * 100, faster, true
}

// HasTries tells whether a file holds a run of the timing model.
func HasTries(f *result.File) bool {
	return slices.ContainsFunc(f.Runs, func(r result.Run) bool { return r.Tries != nil })
}

// SplitTries separates the inputs holding runs of the timing model from
// the others.
func SplitTries(inputs []Input) (tries, others []Input) {
	for _, in := range inputs {
		if HasTries(in.File) {
			tries = append(tries, in)
		} else {
			others = append(others, in)
		}
	}
	return tries, others
}

// BuildTries compares the runs of the timing model in inputs, one table
// per workload, columns by label as Build makes them (several files
// under one label are repetitions: their tries are pooled). baseline
// names the column the speedups are against ("" the first).
func BuildTries(inputs []Input, baseline string) ([]*TriesTable, error) {
	var order []string
	by := map[string][]Input{}
	for _, in := range inputs {
		if !HasTries(in.File) {
			continue
		}
		w := in.File.Workload.Name
		if _, ok := by[w]; !ok {
			order = append(order, w)
		}
		by[w] = append(by[w], in)
	}
	var out []*TriesTable
	for _, w := range order {
		t, err := buildTries(by[w], baseline)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func buildTries(inputs []Input, baseline string) (*TriesTable, error) {
	t := &TriesTable{Workload: inputs[0].File.Workload.Name}
	col := map[string]int{}
	var colInputs [][]Input
	for _, in := range inputs {
		l := in.Column()
		i, ok := col[l]
		if !ok {
			i = len(t.Labels)
			col[l] = i
			t.Labels = append(t.Labels, l)
			colInputs = append(colInputs, nil)
		}
		colInputs[i] = append(colInputs[i], in)
	}
	if baseline != "" {
		i, ok := col[baseline]
		if !ok {
			return nil, fmt.Errorf("--baseline %q: no such column in %s (columns: %s)", baseline, t.Workload, strings.Join(t.Labels, ", "))
		}
		t.Baseline = i
	}
	t.Differences, _ = differences(colInputs)

	// Each column's tries of each query, pooled over its runs.
	var queries []string
	pooled := make([]map[string]*result.QueryTries, len(t.Labels))
	t.Storage = make([]*result.TableStorage, len(t.Labels))
	firsts := make([][]string, len(t.Labels))
	modes := make([][]string, len(t.Labels))
	for c, ins := range colInputs {
		pooled[c] = map[string]*result.QueryTries{}
		for _, in := range ins {
			if m := in.File.Workload.Options["cold"]; m != "" && !slices.Contains(modes[c], m) {
				modes[c] = append(modes[c], m)
			}
			for _, r := range in.File.Runs {
				if r.Tries == nil {
					continue
				}
				if t.Tries == 0 {
					t.Tries = r.Tries.Count
				}
				if t.Storage[c] == nil && len(r.Tries.Storage) > 0 {
					sum := &result.TableStorage{}
					for _, s := range r.Tries.Storage {
						sum.DataBytes += s.DataBytes
						sum.IndexBytes += s.IndexBytes
						sum.TotalBytes += s.TotalBytes
					}
					t.Storage[c] = sum
				}
				if r.Status != "" && r.Status != result.StatusComplete {
					t.Notes = append(t.Notes, fmt.Sprintf("%s: the run is %s: its tries are shown, the queries it did not reach are not", in.Path, r.Status))
				}
				for _, q := range r.Tries.Queries {
					p := pooled[c][q.Name]
					if p == nil {
						p = &result.QueryTries{Name: q.Name}
						pooled[c][q.Name] = p
						if !slices.Contains(queries, q.Name) {
							queries = append(queries, q.Name)
						}
					}
					p.Tries = append(p.Tries, q.Tries...)
					if l := q.FirstLabel(); l != "" && !slices.Contains(firsts[c], l) {
						firsts[c] = append(firsts[c], l)
					}
				}
			}
		}
	}
	for c, f := range firsts {
		t.FirstTries = append(t.FirstTries, strings.Join(f, ", "))
		t.ColdModes = append(t.ColdModes, strings.Join(modes[c], ", "))
	}

	compared, differed := 0, false
	for _, q := range queries {
		row := TriesRow{Query: q}
		type answer struct {
			rows int64
			hash string
		}
		answers := make([]*answer, len(t.Labels))
		for c := range t.Labels {
			p := pooled[c][q]
			if p == nil {
				p = &result.QueryTries{Name: q}
			}
			row.Cold = append(row.Cold, timing(p.Tries, true))
			row.Hot = append(row.Hot, timing(p.Tries, false))
			rows, hash, differ, ok := p.Answer()
			if differ {
				differed = true
				t.Notes = append(t.Notes, fmt.Sprintf("query %s: the tries of %s answered differently from each other", q, t.Labels[c]))
			}
			if ok {
				answers[c] = &answer{rows, hash}
			}
		}
		var ref *answer
		agree, n := true, 0
		for _, a := range answers {
			if a == nil {
				continue
			}
			n++
			if ref == nil {
				ref = a
			} else if *a != *ref {
				agree = false
			}
		}
		if agree && n >= 2 {
			compared++
		}
		if !agree {
			differed = true
			var parts []string
			for c, a := range answers {
				if a != nil {
					parts = append(parts, fmt.Sprintf("%s %d rows (%s)", t.Labels[c], a.rows, shortHash(a.hash)))
				}
			}
			t.Notes = append(t.Notes, fmt.Sprintf("query %s: the answers differ: %s", q, strings.Join(parts, ", ")))
		}
		t.Rows = append(t.Rows, row)
	}
	// Said when they agree too: a reader should not have to infer it
	// from a missing note.
	switch {
	case differed || compared == 0:
	case compared == len(queries):
		t.Notes = append(t.Notes, fmt.Sprintf("answers: every column returned identical answers to all %d queries (rows and hash)", compared))
	default:
		t.Notes = append(t.Notes, fmt.Sprintf("answers: identical in every column that answered, for %d of the %d queries; the others were answered by one column or none", compared, len(queries)))
	}
	return t, nil
}

// timing is the best, lowest and highest of the first tries (first) or
// of the others.
func timing(tries []result.Try, first bool) Timing {
	tm := Timing{Lo: math.Inf(1), Hi: math.Inf(-1)}
	for _, tr := range tries {
		if tr.First() != first {
			continue
		}
		if tr.S == nil {
			tm.Failed++
			continue
		}
		tm.N++
		tm.Lo, tm.Hi = min(tm.Lo, *tr.S), max(tm.Hi, *tr.S)
	}
	if tm.N > 0 {
		best := tm.Lo
		tm.Best = &best
	} else {
		tm.Lo, tm.Hi = 0, 0
	}
	return tm
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Title says what the table shows.
func (t *TriesTable) Title() string {
	return fmt.Sprintf("%s: seconds per query, %d tries each on one connection; cold is the first try, hot the best of the others (lowest–highest of the tries in brackets); %% speedup is (S−F)/S, S the slower, F the faster, named",
		t.Workload, t.Tries)
}

// Header is the table's header: the query, each column's cold time and
// the speedups against the baseline, then the same hot.
func (t *TriesTable) Header() []string {
	h := []string{"query"}
	for _, kind := range []string{"cold", "hot"} {
		for _, l := range t.Labels {
			h = append(h, l+" "+kind)
		}
		for c, l := range t.Labels {
			if c != t.Baseline {
				h = append(h, kind+" % speedup")
				if len(t.Labels) > 2 {
					h[len(h)-1] = fmt.Sprintf("%s %% speedup %s/%s", kind, t.Labels[t.Baseline], l)
				}
			}
		}
	}
	return h
}

// Cells are the table's rows as text: a failed time is "null", never 0.
func (t *TriesTable) Cells() [][]string {
	var out [][]string
	for _, r := range t.Rows {
		line := []string{r.Query}
		for _, ts := range [][]Timing{r.Cold, r.Hot} {
			for _, tm := range ts {
				line = append(line, formatTiming(tm))
			}
			for c := range t.Labels {
				if c == t.Baseline {
					continue
				}
				pct, faster, ok := Speedup(ts[t.Baseline], ts[c])
				switch {
				case !ok:
					line = append(line, "—")
				case pct == 0:
					line = append(line, "0.00%")
				default:
					name := t.Labels[t.Baseline]
					if faster == 1 {
						name = t.Labels[c]
					}
					line = append(line, fmt.Sprintf("%.2f%% %s", pct, name))
				}
			}
		}
		out = append(out, line)
	}
	return out
}

// RelativeTitle says what the table relative to the best shows.
func (t *TriesTable) RelativeTitle() string {
	return fmt.Sprintf("%s: relative to the best, as JSONBench lays it out: each column's cold and hot seconds per query and, in brackets, their ratio to the fastest column's (×1.00 is the fastest); storage on disk in MB after the tries, its total's ratio to the smallest",
		t.Workload)
}

// RelativeHeader is the header of the table relative to the best: the
// query, then each column's cold and hot.
func (t *TriesTable) RelativeHeader() []string {
	h := []string{"query"}
	for _, l := range t.Labels {
		h = append(h, l+" cold", l+" hot")
	}
	return h
}

// RelativeCells are the rows of the table relative to the best: per
// query each column's cold and hot time with its ratio to the best
// column's ("null" for a failed time), then, when a column's files
// record it, the storage rows: data, indexes and total in MB (the total
// with its ratio to the smallest).
func (t *TriesTable) RelativeCells() [][]string {
	best := func(ts []Timing) float64 {
		b := math.Inf(1)
		for _, tm := range ts {
			if tm.Best != nil {
				b = min(b, *tm.Best)
			}
		}
		return b
	}
	rel := func(tm Timing, b float64) string {
		if tm.Best == nil {
			return "null"
		}
		if b <= 0 {
			return formatSeconds(*tm.Best) + " (×1.00)"
		}
		return fmt.Sprintf("%s (×%.2f)", formatSeconds(*tm.Best), *tm.Best/b)
	}
	var out [][]string
	for _, r := range t.Rows {
		line := []string{r.Query}
		bc, bh := best(r.Cold), best(r.Hot)
		for c := range t.Labels {
			line = append(line, rel(r.Cold[c], bc), rel(r.Hot[c], bh))
		}
		out = append(out, line)
	}
	smallest := int64(math.MaxInt64)
	for _, s := range t.Storage {
		if s != nil && s.TotalBytes > 0 {
			smallest = min(smallest, s.TotalBytes)
		}
	}
	if smallest == math.MaxInt64 {
		return out
	}
	mb := func(b int64) string { return strconv.FormatFloat(float64(b)/1e6, 'f', 1, 64) }
	for _, row := range []struct {
		name string
		get  func(*result.TableStorage) int64
	}{
		{"storage: data, MB", func(s *result.TableStorage) int64 { return s.DataBytes }},
		{"storage: indexes, MB", func(s *result.TableStorage) int64 { return s.IndexBytes }},
		{"storage: total, MB", func(s *result.TableStorage) int64 { return s.TotalBytes }},
	} {
		line := []string{row.name}
		for _, s := range t.Storage {
			v := "—"
			if s != nil {
				v = mb(row.get(s))
				if row.name == "storage: total, MB" {
					v += fmt.Sprintf(" (×%.2f)", float64(s.TotalBytes)/float64(smallest))
				}
			}
			line = append(line, v, "")
		}
		out = append(out, line)
	}
	return out
}

// formatTiming writes a timing: its best time, the range of its tries
// when there were several, and how many failed.
func formatTiming(tm Timing) string {
	var s string
	switch {
	case tm.Best == nil:
		s = "null"
	case tm.N > 1:
		s = fmt.Sprintf("%s (%s–%s)", formatSeconds(*tm.Best), formatSeconds(tm.Lo), formatSeconds(tm.Hi))
	default:
		s = formatSeconds(*tm.Best)
	}
	if tm.Failed > 0 {
		s += fmt.Sprintf(" [%d failed]", tm.Failed)
	}
	return s
}

// formatSeconds writes seconds with four significant digits or more.
func formatSeconds(v float64) string {
	switch {
	case v >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// FirstTriesNote says how the columns' first tries ran when that is not
// cold (result.LabelCold) everywhere: once when every column's ran
// alike, else column by column, saying why for lukewarm ones (the cold
// mode none, recorded in the file, or a target dbarena cannot restart).
// It is "" when every first try was cold.
func (t *TriesTable) FirstTriesNote() string {
	if len(t.FirstTries) == 0 {
		return ""
	}
	same, lukewarm := true, false
	for _, f := range t.FirstTries {
		same = same && f == t.FirstTries[0]
		lukewarm = lukewarm || slices.Contains(strings.Split(f, ", "), result.LabelLukewarm)
	}
	if same && !lukewarm {
		if f := t.FirstTries[0]; f != result.LabelCold && f != "" {
			return "first tries: " + f + " in every column"
		}
		return ""
	}
	var parts []string
	for c, f := range t.FirstTries {
		part := t.Labels[c] + " " + f
		if slices.Contains(strings.Split(f, ", "), result.LabelLukewarm) {
			if m := t.ColdModes[c]; m != "" {
				part += " (--cold " + m + ": the server was not restarted before them)"
			} else {
				part += " (a target dbarena cannot restart, not a managed server)"
			}
		}
		parts = append(parts, part)
	}
	return "first tries: " + strings.Join(parts, "; ")
}

// WriteTriesText writes the tables aligned, their notes under them.
func WriteTriesText(w io.Writer, tables []*TriesTable) error {
	var b strings.Builder
	for i, t := range tables {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t.Title() + "\n\n")
		writeAligned(&b, append([][]string{t.Header()}, t.Cells()...))
		if len(t.Labels) > 1 {
			b.WriteString("\n" + t.RelativeTitle() + "\n\n")
			writeAligned(&b, append([][]string{t.RelativeHeader()}, t.RelativeCells()...))
		}
		if len(t.Differences) > 0 {
			b.WriteString("\nDifferences between the columns:\n")
			for _, d := range t.Differences {
				var parts []string
				for c, v := range d.Values {
					parts = append(parts, t.Labels[c]+": "+v)
				}
				b.WriteString("  " + d.Name + "  " + strings.Join(parts, " | ") + "\n")
			}
		}
		if n := t.FirstTriesNote(); n != "" {
			b.WriteString("note: " + n + "\n")
		}
		for _, n := range t.Notes {
			b.WriteString("note: " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTriesMarkdown writes the tables as GitHub-flavoured Markdown.
func WriteTriesMarkdown(w io.Writer, tables []*TriesTable) error {
	var b strings.Builder
	for i, t := range tables {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("**" + markdown.Escape(t.Title()) + "**\n\n")
		writeMDTable(&b, t.Header(), t.Cells())
		if len(t.Labels) > 1 {
			b.WriteString("\n**" + markdown.Escape(t.RelativeTitle()) + "**\n\n")
			writeMDTable(&b, t.RelativeHeader(), t.RelativeCells())
		}
		if len(t.Differences) > 0 {
			b.WriteString("\nDifferences between the columns:\n\n")
			writeMDRow(&b, append([]string{""}, t.Labels...), false)
			seps := make([]string, len(t.Labels)+1)
			for j := range seps {
				seps[j] = "---"
			}
			writeMDRow(&b, seps, true)
			for _, d := range t.Differences {
				writeMDRow(&b, append([]string{d.Name}, d.Values...), false)
			}
		}
		notes := t.Notes
		if n := t.FirstTriesNote(); n != "" {
			notes = append([]string{n}, notes...)
		}
		if len(notes) > 0 {
			b.WriteString("\n")
			for _, n := range notes {
				b.WriteString("- " + markdown.Escape(n) + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMDTable writes a table: its header, the first column left-aligned,
// the others right-aligned, and its rows.
func writeMDTable(b *strings.Builder, h []string, rows [][]string) {
	writeMDRow(b, h, false)
	seps := make([]string, len(h))
	for j := range seps {
		seps[j] = "---:"
	}
	seps[0] = "---"
	writeMDRow(b, seps, true)
	for _, r := range rows {
		writeMDRow(b, r, false)
	}
}

// WriteTriesCSV writes one line per (workload, query, column): the cold
// and hot times (empty when null) with their ranges and failed tries.
func WriteTriesCSV(w io.Writer, tables []*TriesTable) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"workload", "query", "label", "first_try", "cold_s", "cold_min_s", "cold_max_s", "cold_failed", "hot_s", "hot_min_s", "hot_max_s", "hot_failed"})
	num := func(tm Timing) []string {
		if tm.Best == nil {
			return []string{"", "", "", strconv.Itoa(tm.Failed)}
		}
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		return []string{f(*tm.Best), f(tm.Lo), f(tm.Hi), strconv.Itoa(tm.Failed)}
	}
	for _, t := range tables {
		for _, r := range t.Rows {
			for c, l := range t.Labels {
				line := append([]string{t.Workload, r.Query, l, t.FirstTries[c]}, num(r.Cold[c])...)
				_ = cw.Write(append(line, num(r.Hot[c])...))
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
