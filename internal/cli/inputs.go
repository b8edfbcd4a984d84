package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
)

// inputsHelp is the arguments' part of the help of compare, export and
// report.
const inputsHelp = `
A label names a column: the target's label, or LABEL= before the file name.
A directory stands for its result files: a plan's results directory gives
the files of its completed runs under the labels compare.md uses, any other
directory every result file in it; a result file of a plan named by itself (a
glob) keeps its plan label. Files that are not result files (a plan's
plan.json caught by a glob) are skipped with one notice.`

// loadInputs reads the result files compare, export and report take, one
// argument each: "[LABEL=]FILE" or "[LABEL=]DIR". A directory is a plan's
// results directory (the result files of its completed runs, labelled as
// compare.md labels them) or, without plan.json, every result file in it.
// Files that are not dbarena result files (a plan's plan.json caught by a
// glob, a report) are skipped with one notice on stderr naming them; a
// .json file that is not JSON at all is an error, as a damaged result
// would be. An argument that names an existing path is a path even when
// it contains "=".
func loadInputs(cmd string, args []string, stderr io.Writer) ([]compare.Input, error) {
	var inputs []compare.Input
	var skipped []string
	// planLabels are the labels of the result files of plans' directories,
	// by directory, for files named one by one (a glob).
	planLabels := map[string]map[string]string{}
	labelInPlan := func(path string) (string, error) {
		dir := filepath.Dir(path)
		labels, ok := planLabels[dir]
		if !ok {
			files, _, err := plan.ResultFiles(dir)
			if err != nil {
				return "", &UsageError{fmt.Errorf("%s: %w", dir, err)}
			}
			labels = map[string]string{}
			for _, rf := range files {
				labels[rf.Name] = rf.Label
			}
			planLabels[dir] = labels
		}
		return labels[filepath.Base(path)], nil
	}
	for _, a := range args {
		label, path := "", a
		if _, err := os.Stat(a); err != nil {
			if l, p, ok := strings.Cut(a, "="); ok {
				if l == "" {
					return nil, &UsageError{fmt.Errorf("%q: empty label before =", a)}
				}
				label, path = l, p
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("%s: %w", path, err)}
		}
		if !fi.IsDir() {
			in, ok, err := readInput(path)
			if err != nil {
				return nil, err
			}
			if !ok {
				skipped = append(skipped, path)
				continue
			}
			if label == "" {
				if label, err = labelInPlan(path); err != nil {
					return nil, err
				}
			}
			in.Label = label
			inputs = append(inputs, in)
			continue
		}
		files, isPlan, err := plan.ResultFiles(path)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("%s: %w", path, err)}
		}
		if !isPlan {
			names, err := filepath.Glob(filepath.Join(path, "*.json"))
			if err != nil {
				return nil, &UsageError{fmt.Errorf("%s: %w", path, err)}
			}
			slices.Sort(names)
			for _, n := range names {
				files = append(files, plan.ResultFile{Name: filepath.Base(n)})
			}
		}
		found := 0
		for _, rf := range files {
			p := filepath.Join(path, rf.Name)
			in, ok, err := readInput(p)
			if err != nil {
				return nil, err
			}
			if !ok {
				skipped = append(skipped, p)
				continue
			}
			in.Label = rf.Label
			if label != "" {
				in.Label = label
			}
			inputs = append(inputs, in)
			found++
		}
		if found == 0 {
			what := "no result files"
			if isPlan {
				what = "no completed runs yet (plan.json lists none done)"
			}
			return nil, &UsageError{fmt.Errorf("%s: %s", path, what)}
		}
	}
	if len(skipped) > 0 {
		what := countNoun(len(skipped), "file that is not a dbarena result file", "files that are not dbarena result files")
		fmt.Fprintf(stderr, "%s: skipped %d %s: %s\n", cmd, len(skipped), what, strings.Join(skipped, ", "))
	}
	if len(inputs) == 0 {
		return nil, &UsageError{fmt.Errorf("no result files among %s", strings.Join(args, " "))}
	}
	return inputs, nil
}

// readInput reads one result file; ok is false for a file that is not a
// dbarena result file (JSON without a workload, or a file that is not
// JSON and not named .json).
func readInput(path string) (in compare.Input, ok bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return in, false, &UsageError{fmt.Errorf("%s: %w", path, err)}
	}
	var probe struct {
		Workload *struct {
			Name string `json:"name"`
		} `json:"workload"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		var syn *json.SyntaxError
		if !strings.EqualFold(filepath.Ext(path), ".json") && errors.As(err, &syn) {
			return in, false, nil
		}
		if errors.As(err, &syn) {
			return in, false, &UsageError{fmt.Errorf("%s: %w: %v", path, result.ErrSchema, err)}
		}
		// Valid JSON of another shape (an array, a string): not a result.
		return in, false, nil
	}
	if probe.Workload == nil || probe.Workload.Name == "" {
		return in, false, nil
	}
	f, err := result.Decode(b)
	if err != nil {
		return in, false, &UsageError{fmt.Errorf("%s: %w", path, err)}
	}
	return compare.Input{Path: path, File: f}, true, nil
}

// countNoun is one when n is 1, else many.
func countNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
