package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dbarena/dbarena/markdown"
	"github.com/dbarena/dbarena/metric"
)

// Title is the line above a table: workload, figure, direction, what the
// changes are against, and (with an average row) that the average's
// change is the change of the means.
func (t *Table) Title() string {
	what := t.Metric.Name
	if t.Op != "" {
		what += " of " + t.Op
	}
	if t.Metric.Unit != "" && !strings.HasSuffix(t.Metric.Name, t.Metric.Unit) {
		what += " (" + t.Metric.Unit + ")" // not for transfers/min
	}
	better := "higher is better"
	if !t.Metric.Higher {
		better = "lower is better"
	}
	base := t.Columns[t.Baseline].Label
	changes := "changes against " + base
	switch t.Change {
	case ChangeVsBetter:
		changes = base + "'s lead over each column in % of " + base
	case ChangeVsPrevious:
		changes = "changes against the column before"
	}
	s := fmt.Sprintf("%s: %s, %s; %s", t.Workload, what, better, changes)
	if len(t.Rows) > 1 && len(t.Columns) > 1 {
		if t.AverageOf == AverageMeanOfChanges {
			s += "; average: means, and the mean of the rows' changes"
		} else {
			s += "; average: means, and the change of the means"
		}
	}
	if len(t.Beside) > 0 {
		var names []string
		for _, m := range t.Beside {
			names = append(names, besideName(m))
		}
		s += "; beside each column its " + strings.Join(names, ", ") + " (medians of the runs)"
	}
	if t.Relative && t.RelativeTo != 0 {
		s += fmt.Sprintf("; values relative to %s at %d threads (%s = 1.00x)", t.Columns[t.Baseline].Label, t.RelativeThreads, formatNumber(t.RelativeTo))
	}
	return s
}

// Header is the table's column names.
func (t *Table) Header() []string {
	h := []string{"threads"}
	if t.rated() {
		h[0] = "rate"
	}
	for _, c := range t.Columns {
		h = append(h, c.Label)
		for _, m := range t.Beside {
			h = append(h, c.Label+" "+m.Name)
		}
	}
	for i, c := range t.Columns {
		ref := t.Ref(i)
		switch {
		case ref < 0:
		case t.Change == ChangeVsBetter:
			h = append(h, t.Columns[ref].Label+" over "+c.Label)
		default:
			h = append(h, c.Label+" vs "+t.Columns[ref].Label)
		}
	}
	return h
}

// Cells is the table's body as text, the average row last.
func (t *Table) Cells() [][]string {
	var out [][]string
	row := func(first string, r Row, avg bool) []string {
		line := []string{first}
		for i, c := range r.Cells {
			line = append(line, t.formatCell(c, avg))
			for k := range t.Beside {
				line = append(line, formatBeside(r.Beside[i][k]))
			}
		}
		for i, ch := range r.Changes {
			if ref := t.Ref(i); ref >= 0 {
				line = append(line, formatChange(ch, r.Cells[ref], r.Cells[i]))
			}
		}
		return line
	}
	for _, r := range t.Rows {
		out = append(out, row(t.RowLabel(r), r, false))
	}
	if len(t.Rows) > 1 {
		out = append(out, row(t.AverageLabel(), t.Average, true))
	}
	return out
}

// AverageLabel names the average row by its change's convention:
// "average (change of means)" or "average (mean of changes)"; just
// "average" in a table of one column, which has no changes.
func (t *Table) AverageLabel() string {
	if len(t.Columns) < 2 {
		return "average"
	}
	if t.AverageOf == AverageMeanOfChanges {
		return "average (mean of changes)"
	}
	return "average (change of means)"
}

// ByColumn tells whether the table reads better turned: one thread count
// (or rate) and three columns or more, as a study's table of
// configurations, one line each, with the figures beside them.
func (t *Table) ByColumn() bool { return len(t.Rows) == 1 && len(t.Columns) >= 3 }

// Grid is the table as the writers lay it out: Header and Cells, or,
// when ByColumn, one line per column (its label, its value, the figures
// beside it and its change), the header naming the one row ("4
// threads").
func (t *Table) Grid() (header []string, rows [][]string) {
	if !t.ByColumn() {
		return t.Header(), t.Cells()
	}
	r := t.Rows[0]
	what := t.RowLabel(r)
	if !t.rated() {
		what += " threads"
	}
	header = []string{what, t.Metric.Name}
	if t.Relative {
		header[1] += " (relative)"
	}
	for _, m := range t.Beside {
		header = append(header, m.Name)
	}
	header = append(header, "change")
	for i, c := range t.Columns {
		line := []string{c.Label, t.formatCell(r.Cells[i], false)}
		for k := range t.Beside {
			line = append(line, formatBeside(r.Beside[i][k]))
		}
		change := ""
		if ref := t.Ref(i); ref >= 0 {
			change = formatChange(r.Changes[i], r.Cells[ref], r.Cells[i])
		} else if i == t.Baseline {
			change = "baseline"
		}
		line = append(line, change)
		rows = append(rows, line)
	}
	return header, rows
}

// rated tells whether a row stands for an arrival rate: the table's
// first column is then the rate, not the threads.
func (t *Table) rated() bool {
	for _, r := range t.Rows {
		if r.Rate > 0 {
			return true
		}
	}
	return false
}

// RowLabel names a row: its threads, or in a table of arrival rates its
// rate ("200/s"), with its threads when the rows' threads differ
// ("200/s, 8 threads").
func (t *Table) RowLabel(r Row) string {
	if !t.rated() {
		return strconv.Itoa(r.Threads)
	}
	s := "closed"
	if r.Rate > 0 {
		s = strconv.FormatFloat(r.Rate, 'g', -1, 64) + "/s"
	}
	for _, o := range t.Rows {
		if o.Threads != r.Threads {
			return fmt.Sprintf("%s, %d threads", s, r.Threads)
		}
	}
	return s
}

func (t *Table) formatCell(c Cell, avg bool) string {
	if c.N() == 0 {
		return "-"
	}
	v := formatNumber(c.Center)
	if t.Relative && t.RelativeTo != 0 {
		v = fmt.Sprintf("%.2fx", c.Center)
	}
	mark := ""
	if c.Disturbed > 0 {
		mark = " !"
	}
	if avg || c.N() == 1 {
		return v + mark
	}
	return v + " ±" + pctRange(c) + " (n=" + strconv.Itoa(c.N()) + ")" + mark
}

// formatBeside is a figure beside a column: the median (the mean in the
// average row), without its interval.
func formatBeside(c Cell) string {
	if c.N() == 0 {
		return "-"
	}
	return formatNumber(c.Center)
}

// besideName is a figure beside the columns with its unit, where the name
// does not say it: "server_cpu_pct", "disk_iops (/s)", "p95 (ms)".
func besideName(m Metric) string {
	if m.Unit == "" || m.Unit == "count" || strings.HasSuffix(m.Name, m.Unit) ||
		(m.Unit == "%" && strings.HasSuffix(m.Name, "_pct")) {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}

// pctRange is the confidence interval's half-width in percent of the
// median, as benchstat prints it.
func pctRange(c Cell) string {
	if math.IsInf(c.Lo, 0) || math.IsInf(c.Hi, 0) {
		return "∞"
	}
	if c.Center == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*math.Max(c.Hi/c.Center-1, 1-c.Lo/c.Center))
}

// formatChange is "+12.34%", "~ (p=0.400 n=3+3)" when not significant, or
// "+12.34% (p=0.002 n=6+6)" when tested and significant.
func formatChange(ch Change, base, c Cell) string {
	if !ch.Present {
		return "-"
	}
	pct := fmt.Sprintf("%+.2f%%", ch.Pct)
	if !ch.Tested {
		if base.N() > 1 || c.N() > 1 {
			return fmt.Sprintf("%s (n=%d+%d)", pct, base.N(), c.N())
		}
		return pct
	}
	stat := fmt.Sprintf("(p=%.3f n=%d+%d)", ch.P, base.N(), c.N())
	if !ch.Significant {
		return "~ " + stat
	}
	return pct + " " + stat
}

// formatNumber prints about four significant digits.
func formatNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// writeAligned writes rows (the header first) in columns: the first
// left-aligned, the others right-aligned, two spaces apart.
func writeAligned(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, s := range r {
			widths[j] = max(widths[j], utf8.RuneCountInString(s))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for j, s := range r {
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(s))
			if j > 0 {
				line.WriteString("  ")
			}
			if j == 0 {
				line.WriteString(s + pad)
			} else {
				line.WriteString(pad + s)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// WriteText writes the tables aligned for a terminal: numbers right,
// labels left.
func WriteText(w io.Writer, tables []*Table) error {
	var b strings.Builder
	for i, t := range tables {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t.Title() + "\n\n")
		h, rows := t.Grid()
		writeAligned(&b, append([][]string{h}, rows...))
		writeDifferencesText(&b, t)
		for _, n := range t.Notes {
			b.WriteString("note: " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeDifferencesText(b *strings.Builder, t *Table) {
	if len(t.Differences) == 0 {
		return
	}
	b.WriteString("\nDifferences between the columns:\n")
	width := 0
	for _, d := range t.Differences {
		width = max(width, utf8.RuneCountInString(d.Name))
	}
	for _, d := range t.Differences {
		var parts []string
		for i, v := range d.Values {
			parts = append(parts, t.Columns[i].Label+": "+v)
		}
		fmt.Fprintf(b, "  %-*s  %s\n", width, d.Name, strings.Join(parts, " | "))
	}
}

// WriteMarkdown writes the tables as GitHub-flavoured Markdown, ready to
// paste.
func WriteMarkdown(w io.Writer, tables []*Table) error {
	var b strings.Builder
	for i, t := range tables {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("**" + markdown.Escape(t.Title()) + "**\n\n")
		h, rows := t.Grid()
		writeMDRow(&b, h, false)
		seps := make([]string, len(h))
		for j := range seps {
			seps[j] = "---:"
		}
		seps[0] = "---"
		writeMDRow(&b, seps, true)
		for _, r := range rows {
			if r[0] == t.AverageLabel() && !t.ByColumn() {
				// Bold, its parentheses escaped like any text.
				r = slices.Clone(r)
				for j := range r {
					r[j] = markdown.Escape(r[j])
				}
				r[0] = "**" + r[0] + "**"
				writeMDRow(&b, r, true)
				continue
			}
			writeMDRow(&b, r, false)
		}
		if len(t.Differences) > 0 {
			b.WriteString("\nDifferences between the columns:\n\n")
			// One line per difference, or per column when the table
			// is turned (ByColumn).
			h := []string{""}
			var lines [][]string
			if t.ByColumn() {
				for _, d := range t.Differences {
					h = append(h, d.Name)
				}
				for i, c := range t.Columns {
					line := []string{c.Label}
					for _, d := range t.Differences {
						line = append(line, d.Values[i])
					}
					lines = append(lines, line)
				}
			} else {
				for _, c := range t.Columns {
					h = append(h, c.Label)
				}
				for _, d := range t.Differences {
					lines = append(lines, append([]string{d.Name}, d.Values...))
				}
			}
			writeMDRow(&b, h, false)
			seps := make([]string, len(h))
			for j := range seps {
				seps[j] = "---"
			}
			writeMDRow(&b, seps, true)
			for _, l := range lines {
				writeMDRow(&b, l, false)
			}
		}
		if len(t.Notes) > 0 {
			b.WriteString("\n")
			for _, n := range t.Notes {
				b.WriteString("- " + markdown.Escape(n) + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// csvColumn is a figure's CSV field: a run metric's export column
// ("p95_ms", "server_cpu_pct"), else its name.
func csvColumn(m Metric) string {
	if rm, ok := metric.LookupRunMetric(m.Name); ok {
		return rm.Column
	}
	return m.Name
}

// writeMDRow writes one line of a Markdown table, escaping its cells
// unless they are Markdown already (raw).
func writeMDRow(b *strings.Builder, cells []string, raw bool) {
	b.WriteString("|")
	for _, c := range cells {
		if !raw {
			c = markdown.Escape(c)
		}
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

// WriteCSV writes the tables in long form, one line per (threads, column),
// for spreadsheets and pivot tables: workload, metric, unit, threads,
// rate_tps (the arrival rate of an open-model row, else empty), label, baseline (the column the change is against), n, median, ci_low,
// ci_high, vs_baseline_pct (the change by the convention in change),
// p_value, significant, change; then, with Options.Columns, one field
// per figure beside the columns, named by the figure (export's column:
// server_cpu_pct, p95_ms), holding the cell's median.
// Averages are left to the spreadsheet; empty fields mean "not
// applicable".
func WriteCSV(w io.Writer, tables []*Table) error {
	cw := csv.NewWriter(w)
	header := []string{"workload", "metric", "unit", "op", "threads", "rate_tps", "label", "baseline", "n", "median", "ci_low", "ci_high", "vs_baseline_pct", "p_value", "significant", "change"}
	// Every table has the same figures beside (Options.Columns).
	var beside []Metric
	if len(tables) > 0 {
		beside = tables[0].Beside
	}
	for _, m := range beside {
		header = append(header, csvColumn(m))
	}
	cw.Write(header)
	num := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 10, 64)
	}
	for _, t := range tables {
		unit := t.Metric.Unit
		if t.Relative {
			unit = "x"
		}
		for _, r := range t.Rows {
			for c, cell := range r.Cells {
				if cell.N() == 0 {
					continue
				}
				ch := r.Changes[c]
				ref := ""
				if i := t.Ref(c); i >= 0 {
					ref = t.Columns[i].Label
				}
				rate := ""
				if r.Rate > 0 {
					rate = num(r.Rate)
				}
				rec := []string{t.Workload, t.Metric.Name, unit, t.Op, strconv.Itoa(r.Threads), rate, t.Columns[c].Label,
					ref, strconv.Itoa(cell.N()), num(cell.Center), "", "", "", "", "", t.Change}
				if cell.N() > 1 {
					rec[10], rec[11] = num(cell.Lo), num(cell.Hi)
				}
				if ch.Present {
					rec[12] = num(ch.Pct)
				}
				if ch.Tested {
					rec[13] = num(ch.P)
					rec[14] = strconv.FormatBool(ch.Significant)
				}
				for k := range beside {
					v := ""
					if k < len(t.Beside) && r.Beside[c][k].N() > 0 {
						v = num(r.Beside[c][k].Center)
					}
					rec = append(rec, v)
				}
				cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
