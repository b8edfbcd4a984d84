package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"
)

// CheckKnobs reports, without starting anything, knobs of spec whose names
// the server's own binaries do not know: MariaDB's from `mariadbd --help
// --verbose`, which lists every variable; PostgreSQL's from `postgres
// --describe-config`, which leaves out about fifty developer and
// read-only settings (application_name, trace_sort, jit_dump_bitcode …),
// so on PostgreSQL only a name it does not list but that is within two
// edits of one it does (a typo: shared_bufers) is reported, with the name
// meant; any other unknown name is refused when the server starts. Each
// problem is a *KnobError naming the knob. Values are checked when the
// server starts (Start reads every knob back). PgBouncer's own settings
// (pgbouncer.*) and PostgreSQL's custom settings (with a dot in their
// names, for extensions) are not checked here. Missing binaries are an
// error wrapping ErrNotInstalled.
func CheckKnobs(ctx context.Context, spec Spec) error {
	var knobs []Knob
	for _, k := range spec.Knobs {
		if !strings.HasPrefix(k.Name, BouncerPrefix) && !strings.Contains(k.Name, ".") {
			knobs = append(knobs, k)
		}
	}
	if len(knobs) == 0 {
		return nil
	}
	kind := spec.Kind
	if kind == PgBouncer {
		kind = Postgres // the knobs go to its PostgreSQL
	}
	var prog string
	var args []string
	switch kind {
	case Postgres:
		_, path, err := findPostgres(spec.BinDir, spec.Getenv("PATH"))
		if err != nil {
			return err
		}
		prog, args = path["postgres"], []string{"--describe-config"}
	case MariaDB:
		bins, err := findBinaries(spec)
		if err != nil {
			return err
		}
		prog, args = bins.path["mariadbd"], []string{"--no-defaults", "--help", "--verbose"}
	default:
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, args...).Output()
	if err != nil && len(out) == 0 {
		return err
	}
	known := knownSettings(kind, out)
	var errs []error
	for _, k := range knobs {
		name := normalName(kind, k.Name)
		if known[name] {
			continue
		}
		problem := "unknown setting (" + prog + " " + strings.Join(args, " ") + " does not list it)"
		if near := nearest(name, known); near != "" {
			problem += "; did you mean " + near + "?"
		} else if kind == Postgres {
			continue // perhaps one describe-config leaves out: the start decides
		}
		errs = append(errs, &KnobError{Kind: spec.Kind, Knob: k, Problem: problem})
	}
	return errors.Join(errs...)
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

// knownSettings parses the list of settings a server's binary prints.
func knownSettings(kind Kind, out []byte) map[string]bool {
	known := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	inVariables := false
	for sc.Scan() {
		line := sc.Text()
		switch kind {
		case Postgres:
			// name<TAB>context<TAB>group<TAB>type…
			if name, _, ok := strings.Cut(line, "\t"); ok {
				known[normalName(kind, name)] = true
			}
		case MariaDB:
			// After "Variables (--variable-name=value)" and its ruler, one
			// "name value" per line until a blank line.
			switch {
			case strings.HasPrefix(line, "Variables (--variable-name=value)"):
				inVariables = true
			case inVariables && strings.TrimSpace(line) == "":
				inVariables = false
			case inVariables && !strings.HasPrefix(line, "---"):
				if f := strings.Fields(line); len(f) > 0 {
					known[normalName(kind, f[0])] = true
				}
			}
		}
	}
	return known
}

// normalName is a setting's name as knownSettings keys it: lower case;
// MariaDB's options take '-' and '_' alike.
func normalName(kind Kind, name string) string {
	name = strings.ToLower(name)
	if kind == MariaDB {
		name = strings.ReplaceAll(name, "-", "_")
	}
	return name
}
