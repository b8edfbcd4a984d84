package script

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/script/lang"
)

func init() { workload.Register(meta()) }

func meta() workload.Meta {
	return workload.Meta{
		Name:        "script",
		Description: "pgbench-compatible scripts (--file, --builtin tpcb-like|simple-update|select-only): SQL, \\set expressions, \\sleep, \\if, \\gset, \\aset, pipelines, \\shell",
		Version:     "1",
		New:         func() workload.Workload { return New() },
	}
}

// Protocols are the values of --protocol, pgbench's -M.
const (
	ProtocolSimple   = "simple"
	ProtocolExtended = "extended"
	ProtocolPrepared = "prepared"
)

var (
	_ workload.Workload = (*Script)(nil)
	_ workload.Replayer = (*worker)(nil)
)

// Script is the workload: scripts picked by weight for every
// transaction. Its options are set through its Spec's Options.
type Script struct {
	fs       *pflag.FlagSet
	files    []string
	builtins []string
	defines  []string
	protocol string
	scale    int64
	seed     uint64
	shell    bool
	init     string

	// debug receives the output of debug(): standard error.
	debug io.Writer

	// mu guards parsed, the scripts as the options last gave them: a
	// memo of the options, so that Define, Validate and Open parse the
	// same --file and --builtin once (no state of a run is kept here).
	mu     sync.Mutex
	parsed *parsed
}

// parsed are scripts that loaded, with the options they were loaded
// with (parseKey).
type parsed struct {
	key     string
	scripts []weighted
}

type weighted struct {
	name string
	// flag and value are the option that gave the script ("file" and
	// its path@weight, or "builtin" and its name).
	flag, value string
	script      *lang.Script
	weight      int64
	// tx holds the commands that are a transaction's control, which the
	// worker runs as the engine's Begin, Commit and Rollback.
	tx map[*lang.Command]txControl
	// ends is what each SQL command that opens or ends a transaction
	// leaves: txBegin an open transaction, txCommit none.
	ends map[*lang.Command]txControl
}

// txControl is what a transaction-control command does.
type txControl uint8

const (
	txNone txControl = iota
	txBegin
	txCommit
	txRollback
)

// txControls maps the statements that begin, commit or roll back a
// transaction (PostgreSQL's END and ABORT too) to the engine's own
// Begin, Commit and Rollback: BEGIN IMMEDIATE on SQLite, COMMIT on
// MariaDB for pgbench's END, and a COMMIT that PostgreSQL answers with
// ROLLBACK is an error.
var txControls = map[string]txControl{
	"BEGIN": txBegin, "BEGIN WORK": txBegin, "BEGIN TRANSACTION": txBegin, "START TRANSACTION": txBegin,
	"COMMIT": txCommit, "COMMIT WORK": txCommit, "COMMIT TRANSACTION": txCommit,
	"END": txCommit, "END WORK": txCommit, "END TRANSACTION": txCommit,
	"ROLLBACK": txRollback, "ROLLBACK WORK": txRollback, "ROLLBACK TRANSACTION": txRollback, "ABORT": txRollback,
}

// transactionControls finds s's transaction-control commands: SQL
// commands of one query that is one of txControls.
func transactionControls(s *lang.Script) map[*lang.Command]txControl {
	m := map[*lang.Command]txControl{}
	for _, c := range s.Commands {
		if c.Kind != lang.SQLCommand || len(c.Queries) != 1 || len(c.Queries[0].Refs) > 0 || c.Result != lang.ResultNone {
			continue
		}
		if k := txControls[strings.Join(strings.Fields(strings.ToUpper(c.Queries[0].Text)), " ")]; k != txNone {
			m[c] = k
		}
	}
	return m
}

// transactionEnds finds what s's SQL commands leave of a transaction,
// from each query's first words, in order: BEGIN and START TRANSACTION
// (with any modes) open one, COMMIT, END, ROLLBACK, ABORT and PREPARE
// TRANSACTION end it, unless AND CHAIN opens the next at once; ROLLBACK
// TO a savepoint ends nothing.
func transactionEnds(s *lang.Script) map[*lang.Command]txControl {
	m := map[*lang.Command]txControl{}
	for _, c := range s.Commands {
		if c.Kind != lang.SQLCommand {
			continue
		}
		for _, q := range c.Queries {
			w := strings.Fields(strings.ToUpper(strings.NewReplacer(";", " ").Replace(q.Text)))
			if len(w) == 0 {
				continue
			}
			chain := len(w) >= 3 && w[len(w)-2] == "AND" && w[len(w)-1] == "CHAIN" && (len(w) < 4 || w[len(w)-3] != "NO")
			switch {
			case w[0] == "BEGIN" || (w[0] == "START" && len(w) > 1 && w[1] == "TRANSACTION"):
				m[c] = txBegin
			case (w[0] == "ROLLBACK" || w[0] == "ABORT") && !slices.Contains(w, "TO"):
				m[c] = txCommit
				if chain {
					m[c] = txBegin
				}
			case w[0] == "COMMIT" || w[0] == "END" || (w[0] == "PREPARE" && len(w) > 1 && w[1] == "TRANSACTION"):
				m[c] = txCommit
				if chain {
					m[c] = txBegin
				}
			}
		}
	}
	return m
}

// New returns the workload with default options: no script yet.
func New() *Script {
	w := &Script{fs: pflag.NewFlagSet("script", pflag.ContinueOnError), debug: os.Stderr}
	fs := w.fs
	fs.StringArrayVar(&w.files, "file", nil, "a script file, optionally with a weight (path@weight, default 1); repeatable, as pgbench's -f")
	fs.StringArrayVar(&w.builtins, "builtin", nil, "a built-in script (tpcb-like, simple-update, select-only, or a prefix of one), optionally with a weight (name@weight); repeatable, as pgbench's -b; without --file or --builtin, tpcb-like")
	fs.StringArrayVarP(&w.defines, "define", "D", nil, "a variable every client starts with (name=value); repeatable, as pgbench's -D")
	fs.StringVar(&w.protocol, "protocol", ProtocolSimple, "how queries are sent, as pgbench's -M: simple (variables written into the query text), extended (variables bound as parameters) or prepared (prepared statements, parameters bound)")
	fs.Int64Var(&w.scale, "scale", 1, "the value of :scale (pgbench's -s)")
	fs.StringVar(&w.init, "init", "", "pgbench: make pgbench's four tables the workload's, which prepare creates and loads as pgbench -i does at --scale, check verifies (the tpcb invariant) and cleanup drops; without it the scripts' tables are their own")
	fs.BoolVar(&w.shell, "allow-shell", false, "allow \\shell and \\setshell, which run commands on this machine through /bin/sh")
	fs.Uint64Var(&w.seed, "random-seed", 0, "the value of :random_seed; :default_seed, the seed of hash() and permute() without one, derives from it (the clients' random functions are seeded from the run's --seed)")
	return w
}

// Define describes the workload with its options as set: the scripts
// as ops, each command a step; Validate parses them; Supports refuses
// the scripts an engine cannot run; under --init pgbench, pgbench's
// tables and their check (Check refuses to run without it). The
// workload has no figures of its own: Spec.Metrics is empty and the Run
// has no Metrics.
func (w *Script) Define() workload.Spec {
	return workload.Spec{
		Meta:        meta(),
		Options:     w.fs,
		Validate:    w.validate,
		Supports:    w.supports,
		DataOptions: dataOptions(),
		Tables:      w.tables,
		Check:       w.check,
		CheckDoc:    w.checkDoc(),
		Ops:         w.ops(),
	}
}

// ops are the scripts, in the order of the options (--file, then
// --builtin), named by file name or built-in name. Each script's
// commands are its steps, named "command N (line L)" (N from 0, as
// pgbench -r counts them), with their first line as text: the worker
// records every command it runs, as pgbench -r. Scripts that do not
// load (Validate reports why) have no steps.
func (w *Script) ops() []workload.Op {
	ops := w.opNames()
	if loaded, errs := w.load(); len(errs) == 0 {
		for i, s := range loaded {
			for j, c := range s.script.Commands {
				ops[i].Steps = append(ops[i].Steps, workload.Step{Name: fmt.Sprintf("command %d (line %d)", j, c.Pos.Line), Text: c.Source})
			}
		}
	}
	return ops
}

// opNames are the ops' names: the scripts', a name given twice
// numbered.
func (w *Script) opNames() []workload.Op {
	var ops []workload.Op
	seen := map[string]int{}
	add := func(name string) {
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s#%d", name, n)
		}
		ops = append(ops, workload.Op{Name: name})
	}
	for _, f := range w.files {
		p, _, _ := splitWeight(f)
		add(filepath.Base(p))
	}
	for _, b := range w.builtinList() {
		n, _, _ := splitWeight(b)
		if full, err := findBuiltin(n); err == nil {
			n = full
		}
		add(n)
	}
	return ops
}

// builtinList is --builtin, or tpcb-like when no script is given, as
// pgbench runs.
func (w *Script) builtinList() []string {
	if len(w.files) == 0 && len(w.builtins) == 0 {
		return []string{"tpcb-like"}
	}
	return w.builtins
}

// splitWeight splits "x@weight" at its last @; the weight is 1 without
// one.
func splitWeight(s string) (name string, weight int64, err error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return s, 1, nil
	}
	weight, err = strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || weight < 0 || weight > 1<<30 {
		return s[:i], 0, fmt.Errorf("weight %q must be an integer from 0 to %d", s[i+1:], 1<<30)
	}
	return s[:i], weight, nil
}

// validate reads and parses every script and reports every problem at
// once, each naming its option and value.
func (w *Script) validate() []error {
	_, errs := w.load()
	return errs
}

// load returns the scripts and checks the other options.
func (w *Script) load() ([]weighted, []error) {
	scripts, errs := w.scripts()
	ncmd, total := 0, int64(0)
	for _, sc := range scripts {
		ncmd += len(sc.script.Commands)
		total += sc.weight
	}
	if ncmd > histogram.MaxSteps {
		errs = append(errs, &workload.OptionError{Flag: "file", Value: "", Err: fmt.Sprintf("the scripts have %d commands in all, more than the %d whose statistics a run keeps", ncmd, histogram.MaxSteps)})
	}
	if len(errs) == 0 && total == 0 {
		errs = append(errs, &workload.OptionError{Flag: "file", Value: "", Err: "the scripts' weights add up to 0"})
	}
	bad := func(flag, value string, err error) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: value, Err: err.Error()})
	}
	for _, d := range w.defines {
		name, _, ok := strings.Cut(d, "=")
		if !ok || name == "" {
			bad("define", d, errors.New("must be name=value"))
		}
	}
	switch w.protocol {
	case ProtocolSimple, ProtocolExtended, ProtocolPrepared:
	default:
		bad("protocol", w.protocol, errors.New("must be simple, extended or prepared"))
	}
	if w.init != "" && w.init != InitPgbench {
		bad("init", w.init, errors.New("must be pgbench or empty"))
	}
	if w.scale < 1 {
		bad("scale", strconv.FormatInt(w.scale, 10), errors.New("must be at least 1"))
	} else if w.scale > MaxScale {
		bad("scale", strconv.FormatInt(w.scale, 10), fmt.Errorf("at most %d (pgbench's tables at that scale take about 1.5 TB)", MaxScale))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return scripts, nil
}

// parseKey is what the scripts' parsing depends on: --file, --builtin,
// --protocol and --allow-shell.
func (w *Script) parseKey() string {
	return fmt.Sprintf("%q %q %q %v", w.files, w.builtins, w.protocol, w.shell)
}

// scripts reads and parses every script, once for the same options: the
// scripts that loaded are kept until an option they depend on changes.
// It reports every script that does not load.
func (w *Script) scripts() ([]weighted, []error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := w.parseKey()
	if w.parsed != nil && w.parsed.key == key {
		return w.parsed.scripts, nil
	}
	var errs []error
	bad := func(flag, value string, err error) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: value, Err: err.Error()})
	}
	var scripts []weighted
	ops := w.opNames()
	add := func(flag, value, name, src string, weight int64) {
		s, err := lang.Parse(name, src, lang.ParseOptions{AllowShell: w.shell})
		if err != nil {
			bad(flag, value, err)
			return
		}
		if err := w.supported(s); err != nil {
			bad(flag, value, err)
			return
		}
		scripts = append(scripts, weighted{name: ops[len(scripts)].Name, flag: flag, value: value, script: s, weight: weight,
			tx: transactionControls(s), ends: transactionEnds(s)})
	}
	for _, f := range w.files {
		path, weight, err := splitWeight(f)
		if err != nil {
			bad("file", f, err)
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			bad("file", f, err)
			continue
		}
		add("file", f, path, string(src), weight)
	}
	for _, b := range w.builtinList() {
		name, weight, err := splitWeight(b)
		if err != nil {
			bad("builtin", b, err)
			continue
		}
		name, err = findBuiltin(name)
		if err != nil {
			bad("builtin", b, err)
			continue
		}
		src, _ := Builtin(name)
		add("builtin", b, name, src, weight)
	}
	if len(errs) > 0 {
		return scripts, errs
	}
	w.parsed = &parsed{key: key, scripts: scripts}
	return scripts, nil
}

// supports refuses the scripts an engine cannot run: a pipeline where
// connections send one statement at a time, a \gset or \aset where they
// return no rows as text with their columns' names. Each error names
// the option that gave the script. Scripts that do not load refuse
// nothing here: Validate reports them.
func (w *Script) supports(caps engine.Capabilities) []error {
	scripts, errs := w.scripts()
	if len(errs) > 0 {
		return nil
	}
	return refusals(scripts, caps)
}

// refusals are supports' errors for scripts.
func refusals(scripts []weighted, caps engine.Capabilities) []error {
	conns := "its connections"
	if caps.Kind != "" {
		conns = string(caps.Kind) + " connections"
	}
	var errs []error
	for _, s := range scripts {
		if p := pipelineAt(s.script); p != nil && !caps.Pipelines {
			errs = append(errs, &workload.OptionError{Flag: s.flag, Value: s.value,
				Err: fmt.Sprintf("%s: \\startpipeline: this engine has no pipelines (%s send one statement at a time); pipelines run on PostgreSQL only", p.Pos, conns)})
		}
		if c := storeAt(s.script); c != nil && !caps.TextResults {
			errs = append(errs, &workload.OptionError{Flag: s.flag, Value: s.value,
				Err: fmt.Sprintf("%s: \\%s needs query results with their column names, which %s do not return", c.Pos, resultName(c.Result), conns)})
		}
	}
	return errs
}

// MaxScale bounds --scale: pgbench_accounts has 100,000 rows per unit.
const MaxScale = 100_000

// supported refuses what the workload cannot run: a pipeline under
// --protocol simple (as pgbench), a \gset or \aset in a pipeline (its
// rows are not there yet when the next command runs, as pgbench says)
// and, under extended or prepared, compound queries (\;), which one
// statement cannot hold.
func (w *Script) supported(s *lang.Script) error {
	inPipe := false
	for _, c := range s.Commands {
		at := fmt.Sprintf("%s: ", c.Pos)
		switch c.Kind {
		case lang.StartPipelineCommand:
			inPipe = true
		case lang.EndPipelineCommand:
			inPipe = false
		}
		switch {
		case c.Kind == lang.StartPipelineCommand && w.protocol == ProtocolSimple:
			return errors.New(at + "pipelines (\\startpipeline) cannot use the simple query protocol: give --protocol extended or prepared")
		case inPipe && c.Kind == lang.SQLCommand && c.Result != lang.ResultNone:
			return fmt.Errorf("%s\\%s cannot be used in a pipeline: the query's rows are not read before the pipeline ends", at, resultName(c.Result))
		case c.Kind == lang.SQLCommand && len(c.Queries) > 1 && w.protocol != ProtocolSimple:
			return fmt.Errorf("%scompound queries (\\;) need --protocol simple, not %s", at, w.protocol)
		}
	}
	return nil
}
