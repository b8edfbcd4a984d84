package cli

import (
	"io"

	"github.com/dbarena/dbarena/compare"
)

// compareTries writes the comparison of the inputs that hold runs of the
// analytic timing model (the study's table of queries) in format, and
// returns the other inputs, for compare's usual tables.
func compareTries(w io.Writer, inputs []compare.Input, baseline, format string) ([]compare.Input, error) {
	tries, rest := compare.SplitTries(inputs)
	if len(tries) == 0 {
		return rest, nil
	}
	tables, err := compare.BuildTries(tries, baseline)
	if err != nil {
		return nil, &UsageError{err}
	}
	switch format {
	case "md":
		err = compare.WriteTriesMarkdown(w, tables)
	case "csv":
		err = compare.WriteTriesCSV(w, tables)
	default:
		err = compare.WriteTriesText(w, tables)
	}
	if err == nil && len(rest) > 0 {
		_, err = io.WriteString(w, "\n")
	}
	return rest, err
}
