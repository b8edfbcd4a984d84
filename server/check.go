package server

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"
)

// CheckKnobs reports, without starting anything, knobs of spec whose names
// the server's own binaries do not know, from the list of settings the
// kind's program prints (KindDef.Describe): MariaDB's `mariadbd --help
// --verbose` lists every variable; PostgreSQL's `postgres
// --describe-config` leaves out about fifty developer and read-only
// settings (application_name, trace_sort, jit_dump_bitcode …), so for
// such a kind (KindDef.PartialList) only a name it does not list but that
// is within two edits of one it does (a typo: shared_bufers) is reported,
// with the name meant; any other unknown name is refused when the server
// starts. Each problem is a *KnobError naming the knob. Values are
// checked when the server starts (Start reads every knob back). The own
// settings of a kind in front of another (pgbouncer.*) and custom
// settings (with a dot in their names, for PostgreSQL's extensions) are
// not checked here. The settings are those of the version spec asks for
// (Spec.Version). Missing binaries, or a version the machine lacks, are
// an error wrapping ErrNotInstalled.
func CheckKnobs(ctx context.Context, spec Spec) error {
	def := defOf(spec.Kind)
	var knobs []Knob
	for _, k := range spec.Knobs {
		if def.OwnPrefix != "" && strings.HasPrefix(k.Name, def.OwnPrefix) {
			continue
		}
		if !strings.Contains(k.Name, ".") {
			knobs = append(knobs, k)
		}
	}
	if len(knobs) == 0 {
		return nil
	}
	if def.Backend != "" {
		// The knobs go to its backend, from the usual places.
		spec.Version, spec.BinDir = backendSpec(def, spec).Version, ""
		def = defOf(def.Backend)
	}
	if def.Describe == nil {
		return nil
	}
	spec, err := withVersion(ctx, def, spec)
	if err != nil {
		return err
	}
	prog, args, err := def.Describe(spec)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, args...).Output()
	if err != nil && len(out) == 0 {
		return err
	}
	known := def.knownSettings(out)
	var errs []error
	for _, k := range knobs {
		name := def.Normal(k.Name)
		if known[name] {
			continue
		}
		problem := "unknown setting (" + prog + " " + strings.Join(args, " ") + " does not list it)"
		if near := nearest(name, known); near != "" {
			problem += "; did you mean " + near + "?"
		} else if def.PartialList {
			continue // perhaps one the list leaves out: the start decides
		}
		errs = append(errs, &KnobError{Kind: spec.Kind, Knob: k, Problem: problem})
	}
	return errors.Join(errs...)
}

// Nearest is the name of known within two edits of name (but not name
// itself), "" when there is none: the setting a misspelt one meant.
func Nearest(name string, known map[string]bool) string {
	if known[name] {
		return ""
	}
	return nearest(name, known)
}

// nearest is the known name within two edits of name, "" when there is
// none (the first in sorted order on a tie).
func nearest(name string, known map[string]bool) string {
	best, bestD := "", 3
	for k := range known {
		d := editDistance(name, k, 3)
		if d < bestD || d == bestD && d < 3 && k < best {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit when it
// is limit or more.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
