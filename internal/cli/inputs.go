package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/outfile"
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
//
// Before reading anything it lists the files it will read and refuses
// any that is not a regular file (a FIFO, a device, a socket), and an
// output (out, the value of outFlag; "" for none) that is one of them.
// It stops when ctx ends.
func loadInputs(ctx context.Context, cmd string, args []string, stderr io.Writer, outFlag, out string) ([]compare.Input, error) {
	groups, reads, err := listInputs(args)
	if err != nil {
		return nil, err
	}
	if out != "" {
		if err := outfile.CheckNotInput(outFlag, out, reads); err != nil {
			return nil, &UsageError{err}
		}
	}
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
	for _, g := range groups {
		if !g.dir {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			in, ok, err := readInput(g.path)
			if err != nil {
				return nil, err
			}
			if !ok {
				skipped = append(skipped, g.path)
				continue
			}
			label := g.label
			if label == "" {
				if label, err = labelInPlan(g.path); err != nil {
					return nil, err
				}
			}
			in.Label = label
			inputs = append(inputs, in)
			continue
		}
		found := 0
		for _, rf := range g.files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			p := filepath.Join(g.path, rf.Name)
			in, ok, err := readInput(p)
			if err != nil {
				return nil, err
			}
			if !ok {
				skipped = append(skipped, p)
				continue
			}
			in.Label = rf.Label
			if g.label != "" {
				in.Label = g.label
			}
			inputs = append(inputs, in)
			found++
		}
		if found == 0 {
			what := "no result files"
			if g.isPlan {
				what = "no completed runs yet (plan.json lists none done)"
			}
			return nil, &UsageError{fmt.Errorf("%s: %s", g.path, what)}
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

// inputGroup is one argument of loadInputs: a file, or a directory and
// the files of it that are read.
type inputGroup struct {
	label, path string
	dir, isPlan bool
	files       []plan.ResultFile // of a directory
}

// listInputs parses loadInputs' arguments and lists every file it reads:
// the result files, and the plan.json of a plan's directory. Each is
// checked to be a regular file before anything reads it.
func listInputs(args []string) (groups []inputGroup, reads []string, err error) {
	// planState checks dir's plan.json, which labels the result files of
	// a plan's directory, before plan.ResultFiles reads it.
	planState := func(dir string) error {
		p := filepath.Join(dir, plan.StateFile)
		if _, err := os.Lstat(p); err != nil {
			return nil // none: not a plan's directory
		}
		if err := checkInputFiles("", "", p); err != nil {
			return err
		}
		reads = append(reads, p)
		return nil
	}
	for _, a := range args {
		g := inputGroup{path: a}
		if _, err := os.Stat(a); err != nil {
			if l, p, ok := strings.Cut(a, "="); ok {
				if l == "" {
					return nil, nil, &UsageError{fmt.Errorf("%q: empty label before =", a)}
				}
				g.label, g.path = l, p
			}
		}
		fi, err := os.Stat(g.path)
		if err != nil {
			return nil, nil, &UsageError{fmt.Errorf("%s: %w", g.path, err)}
		}
		if !fi.IsDir() {
			if err := checkInputFiles("", "", g.path); err != nil {
				return nil, nil, err
			}
			if g.label == "" {
				if err := planState(filepath.Dir(g.path)); err != nil {
					return nil, nil, err
				}
			}
			groups = append(groups, g)
			reads = append(reads, g.path)
			continue
		}
		g.dir = true
		if err := planState(g.path); err != nil {
			return nil, nil, err
		}
		if g.files, g.isPlan, err = plan.ResultFiles(g.path); err != nil {
			return nil, nil, &UsageError{fmt.Errorf("%s: %w", g.path, err)}
		}
		if !g.isPlan {
			names, err := filepath.Glob(filepath.Join(g.path, "*.json"))
			if err != nil {
				return nil, nil, &UsageError{fmt.Errorf("%s: %w", g.path, err)}
			}
			slices.Sort(names)
			for _, n := range names {
				g.files = append(g.files, plan.ResultFile{Name: filepath.Base(n)})
			}
		}
		for _, rf := range g.files {
			p := filepath.Join(g.path, rf.Name)
			if err := checkInputFiles("", "", p); err != nil {
				return nil, nil, err
			}
			reads = append(reads, p)
		}
		groups = append(groups, g)
	}
	return groups, reads, nil
}

// checkInputFiles refuses, before any work starts, an input file that is
// not a regular file (a FIFO would hold its reader until a writer came; a
// device or a socket holds no result), and an output (out, the value of
// flag; "" for none) that is one of the inputs. Inputs that do not exist
// are left to their reader to report.
func checkInputFiles(flag, out string, inputs ...string) error {
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return &UsageError{fmt.Errorf("%s: %w", in, err)}
		}
		if !fi.Mode().IsRegular() {
			return &UsageError{fmt.Errorf("%s: is %s, not a regular file", in, outfile.Describe(fi.Mode()))}
		}
	}
	if out != "" {
		if err := outfile.CheckNotInput(flag, out, inputs); err != nil {
			return &UsageError{err}
		}
	}
	return nil
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
