package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/shard"
)

// ErrPartial is a merge of a sharded run that lacks shards, or has
// failed ones.
var ErrPartial = errors.New("not every shard")

// mergeStored merges the results the shards of run stored in the target
// (shard.Collect): one merged file, or one per result name (a sharded
// plan's runs) into the directory out.
func mergeStored(ctx context.Context, st *State, tf *targetFlags, run, out string, allowPartial bool) error {
	r, err := tf.open(ctx, st, nil)
	if err != nil {
		return err
	}
	defer r.Engine.Close()
	c, err := r.Engine.Connect(ctx)
	if err != nil {
		return err
	}
	stored, err := shard.Collect(ctx, c.Catalog(), run)
	c.Close()
	if err != nil {
		return err
	}
	if len(stored) == 0 {
		return fmt.Errorf("--run-id %s: %s holds no stored results of that run", run, r.Target)
	}
	names := make([]string, 0, len(stored))
	for n := range stored {
		names = append(names, n)
	}
	slices.Sort(names)
	paths := map[string]string{}
	if len(names) == 1 {
		paths[names[0]] = out
		if err := checkOutputFile("--out", out); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("--out %s: %w (the run stored %d results: -o names a directory)", out, err, len(names))
		}
		for _, n := range names {
			paths[n] = filepath.Join(out, fileName(n)+".json")
		}
	}
	var partial []string
	for _, n := range names {
		recs := stored[n]
		count := recs[0].Count
		var files []*result.File
		var labels []string
		var failed []string
		have := map[int]bool{}
		for _, rec := range recs {
			var f result.File
			if err := json.Unmarshal([]byte(rec.Body), &f); err != nil {
				return fmt.Errorf("run %s: shard %d's stored result %q: %w", run, rec.Shard, n, err)
			}
			have[rec.Shard] = true
			if f.Status != result.StatusComplete {
				msg := fmt.Sprintf("shard %d %s", rec.Shard, f.Status)
				if f.Error != "" {
					msg += ": " + f.Error
				}
				failed = append(failed, msg)
			}
			if len(f.Runs) == 0 {
				continue
			}
			files = append(files, &f)
			labels = append(labels, fmt.Sprintf("shard %d of run %s", rec.Shard, run))
		}
		var missing []int
		for i := range count {
			if !have[i] {
				missing = append(missing, i)
			}
		}
		complete := count - len(missing) - len(failed)
		what := fmt.Sprintf("%s: %d of %d shards", n, complete, count)
		if len(missing) > 0 {
			what += fmt.Sprintf("; shard %s stored no result", shard.Indexes(missing))
		}
		if len(failed) > 0 {
			what += "; " + strings.Join(failed, "; ")
		}
		if complete < count {
			partial = append(partial, what)
			fmt.Fprintf(st.Stderr, "merge: %s\n", what)
			if !allowPartial || len(files) == 0 {
				continue
			}
		}
		if err := writeMerged(ctx, st, files, labels, paths[n]); err != nil {
			return err
		}
	}
	if len(partial) > 0 {
		hint := " (--allow-partial writes what there is)"
		if allowPartial {
			hint = ""
		}
		return fmt.Errorf("%w: %s%s", ErrPartial, strings.Join(partial, "; "), hint)
	}
	return nil
}

// fileName makes a result's name (a plan cell's) a file name.
func fileName(n string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, n)
}
