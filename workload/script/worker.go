package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/script/lang"
)

// Open starts a run: the scripts, parsed once for all its clients, and
// the options every client starts from. It refuses scripts the engine
// env describes cannot run (Spec.Supports).
func (w *Script) Open(_ context.Context, env workload.RunEnv) (*workload.Run, error) {
	scripts, errs := w.load()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if errs := refusals(scripts, env.Engine); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &run{scripts: scripts, defines: slices.Clone(w.defines), protocol: w.protocol, scale: w.scale, seed: w.seed, debug: w.debug}
	for _, s := range scripts {
		r.total += s.weight
	}
	return &workload.Run{NewWorker: r.newWorker}, nil
}

// run is one run of the workload: what its clients share, read only.
type run struct {
	scripts  []weighted
	total    int64 // the scripts' weights
	defines  []string
	protocol string
	scale    int64
	seed     uint64
	debug    io.Writer
}

// newWorker returns a client: its variables (the -D ones and the
// automatic :client_id, :scale, :random_seed and :default_seed), its
// random generator, seeded from env.Seed, and its connection.
func (r *run) newWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	k := &worker{r: r, c: c, scripts: r.scripts, total: r.total, q: env.Queries, steps: env.Steps, sleep: env.Sleep, rand: lang.NewRand(env.Seed),
		vars: lang.NewVars(), stmts: map[*lang.Query]engine.Stmt{}}
	k.res.fn = k.res.row
	for _, d := range r.defines {
		name, value, _ := strings.Cut(d, "=")
		k.vars.SetText(name, value)
	}
	// As pgbench: -D cannot change :client_id but may give :scale,
	// :random_seed and :default_seed, whose default seed is the same for
	// every client.
	k.vars.Set("client_id", lang.Int(int64(env.ID)))
	for _, v := range []struct {
		name  string
		value int64
	}{{"scale", r.scale}, {"random_seed", int64(r.seed)}, {"default_seed", int64(lang.NewRand(r.seed).Uint64())}} {
		if _, ok := k.vars.Text(v.name); !ok {
			k.vars.Set(v.name, lang.Int(v.value))
		}
	}
	return k, nil
}

// worker is one client. It is used by one goroutine.
type worker struct {
	r       *run
	c       engine.SQLConn
	scripts []weighted
	total   int64
	q       *workload.Queries
	steps   *workload.Steps                           // nil: no per-command statistics
	sleep   func(context.Context, time.Duration) bool // WorkerEnv.Sleep (\sleep)
	rand    *lang.Rand
	vars    *lang.Vars
	stmts   map[*lang.Query]engine.Stmt
	res     results

	// The pipeline (\startpipeline … \endpipeline) being queued: its
	// statements, and the command each comes from.
	inPipe    bool
	batch     engine.Batch
	batchCmds []int
	// inTx: the script's last transaction control opened a transaction.
	inTx bool

	// The current transaction: its script and the generator's state at
	// its start, for Replay.
	current int
	start   lang.Rand
	pc      int // the command running
}

// Next picks a script by weight and runs it.
func (k *worker) Next(ctx context.Context) (int, error) {
	r := k.rand.Int63n(k.total)
	k.current = 0
	for i, s := range k.scripts {
		if r < s.weight {
			k.current = i
			break
		}
		r -= s.weight
	}
	k.start = *k.rand
	return k.current, k.run(ctx)
}

// Replay runs the current transaction again with the same random draws,
// as pgbench's retries do.
func (k *worker) Replay(ctx context.Context) (int, error) {
	*k.rand = k.start
	return k.current, k.run(ctx)
}

// Variable, Rand and Debug make the worker the expressions' environment.
func (k *worker) Variable(name string) (lang.Value, bool, error) { return k.vars.Value(name) }

// Rand is the client's generator.
func (k *worker) Rand() *lang.Rand { return k.rand }

// Debug prints debug()'s argument where the workload's debug output
// goes (standard error, as pgbench's).
func (k *worker) Debug(v lang.Value) {
	fmt.Fprintf(k.r.debug, "debug(script=%d,command=%d): %s\n", k.current, k.pc, v.Debug())
}

// CommandError is a failed command of a script: where it is and why.
type CommandError struct {
	Script  string
	Command int // index among the script's commands, from 0
	Pos     lang.Pos
	Kind    lang.CommandKind
	Err     error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("script %s, command %d (%s at %s): %v", e.Script, e.Command, e.Kind, e.Pos, e.Err)
}

// Unwrap returns the cause, a database error for an SQL command.
func (e *CommandError) Unwrap() error { return e.Err }

// run runs the current script. On an error it rolls back whatever
// transaction the script left open.
func (k *worker) run(ctx context.Context) error {
	s := k.scripts[k.current]
	cmds := s.script.Commands
	k.inPipe, k.inTx = false, false
	// A command's latency runs from the previous one's end: one clock
	// read per command.
	var start time.Time
	if k.steps != nil {
		start = time.Now()
	}
	for pc := 0; pc < len(cmds); {
		c := cmds[pc]
		k.pc = pc
		next, err := k.exec(ctx, cmds, pc)
		if err != nil {
			// The statistics count the failure against the command that
			// ran (a pipeline's \endpipeline, as pgbench -r's); the error
			// names the queued command whose statement failed.
			k.steps.Failed(k.current, pc)
			var pe *pipelineError
			if errors.As(err, &pe) {
				pc, c, err = pe.cmd, cmds[pe.cmd], pe.err
			}
			k.inPipe = false
			k.batch.Reset()
			// ROLLBACK outside a transaction is harmless (a warning or an
			// error ignored here).
			_ = k.c.Rollback(context.WithoutCancel(ctx))
			return &CommandError{Script: s.name, Command: pc, Pos: c.Pos, Kind: c.Kind, Err: err}
		}
		if k.steps != nil {
			now := time.Now()
			k.steps.Done(k.current, pc, now.Sub(start))
			start = now
		}
		if e, ok := s.ends[c]; ok {
			k.inTx = e == txBegin
		}
		pc = next
	}
	if k.inPipe {
		k.inPipe = false
		k.batch.Reset()
		_ = k.c.Rollback(context.WithoutCancel(ctx))
		last := len(cmds) - 1
		k.steps.Failed(k.current, last)
		return &CommandError{Script: s.name, Command: last, Pos: cmds[last].Pos, Kind: cmds[last].Kind,
			Err: errors.New("end of script reached with the pipeline open (an \\if skipped its \\endpipeline)")}
	}
	if k.inTx {
		// As pgbench, which aborts the client: the transaction's work was
		// never committed, so it is no transaction done.
		k.inTx = false
		_ = k.c.Rollback(context.WithoutCancel(ctx))
		last := len(cmds) - 1
		k.steps.Failed(k.current, last)
		return &CommandError{Script: s.name, Command: last, Pos: cmds[last].Pos, Kind: cmds[last].Kind,
			Err: errors.New("end of script reached with a transaction open (no COMMIT or END after its BEGIN): rolled back")}
	}
	return nil
}

// exec runs command pc and returns the index of the next one.
func (k *worker) exec(ctx context.Context, cmds []*lang.Command, pc int) (int, error) {
	c := cmds[pc]
	switch c.Kind {
	case lang.SQLCommand:
		if k.inPipe {
			return pc + 1, k.queue(ctx, c, pc)
		}
		switch k.scripts[k.current].tx[c] {
		case txBegin:
			k.q.Other++
			return pc + 1, k.c.Begin(ctx)
		case txCommit:
			k.q.Other++
			return pc + 1, k.c.Commit(ctx)
		case txRollback:
			k.q.Other++
			return pc + 1, k.c.Rollback(ctx)
		}
		return pc + 1, k.sql(ctx, c)
	case lang.SetCommand:
		v, err := lang.Eval(c.Expr, k)
		if err != nil {
			return 0, err
		}
		k.vars.Set(c.Var, v)
		return pc + 1, nil
	case lang.SleepCommand:
		d, err := k.sleepFor(c)
		if err != nil {
			return 0, err
		}
		if !k.sleep(ctx, d) && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return pc + 1, nil
	case lang.IfCommand:
		return k.branch(cmds, pc)
	case lang.ElifCommand, lang.ElseCommand:
		// Reached from a branch that ran: the block is done.
		return c.End + 1, nil
	case lang.EndifCommand:
		return pc + 1, nil
	case lang.ShellCommand, lang.SetShellCommand:
		return pc + 1, k.shell(ctx, c)
	case lang.StartPipelineCommand:
		if k.inPipe {
			return 0, errors.New("already in pipeline mode")
		}
		k.inPipe = true
		k.batch.Reset()
		k.batchCmds = k.batchCmds[:0]
		return pc + 1, nil
	case lang.SyncPipelineCommand, lang.EndPipelineCommand:
		if !k.inPipe {
			// A branch of an \if can leave the pipeline unopened.
			return 0, errors.New("not in pipeline mode")
		}
		if c.Kind == lang.SyncPipelineCommand {
			// A sync point in the queue, sent with the rest at
			// \endpipeline, as pgbench's PQsendPipelineSync.
			k.batch.Sync()
			k.batchCmds = append(k.batchCmds, pc)
			return pc + 1, nil
		}
		err := k.flush(ctx)
		k.inPipe = false
		return pc + 1, err
	}
	return 0, fmt.Errorf("%s is not supported", c.Kind)
}

// branch evaluates the conditions of the block whose \if is at pc and
// returns the first command of the branch to run, or the command after
// the block.
func (k *worker) branch(cmds []*lang.Command, pc int) (int, error) {
	for {
		c := cmds[pc]
		switch c.Kind {
		case lang.IfCommand, lang.ElifCommand:
			v, err := lang.Eval(c.Expr, k)
			if err != nil {
				return 0, err
			}
			if v.Truth() {
				return pc + 1, nil
			}
			pc = c.Next
		default: // \else or \endif
			return pc + 1, nil
		}
	}
}

func (k *worker) sleepFor(c *lang.Command) (time.Duration, error) {
	var n int64
	if c.Sleep.Var != "" {
		v, ok, err := k.vars.Value(c.Sleep.Var)
		switch {
		case err != nil:
			return 0, fmt.Errorf("\\sleep: variable \"%s\": %w", c.Sleep.Var, err)
		case !ok:
			return 0, fmt.Errorf("\\sleep: undefined variable \"%s\"", c.Sleep.Var)
		}
		if n, err = v.AsInt(); err != nil {
			return 0, fmt.Errorf("\\sleep: variable \"%s\": %w", c.Sleep.Var, err)
		}
	} else {
		v, err := lang.ParseValue(c.Sleep.Text)
		if err == nil {
			n, err = v.AsInt()
		}
		if err != nil {
			return 0, fmt.Errorf("\\sleep: %w", err)
		}
	}
	return time.Duration(n) * c.Unit, nil
}

// shell runs \shell's or \setshell's command as pgbench does: its
// words joined by spaces (a :name word replaced by the variable's text, a
// word starting with :: losing one colon) through /bin/sh. \shell fails
// when the command does; \setshell stores its output, which must be an
// integer, in its variable.
func (k *worker) shell(ctx context.Context, c *lang.Command) error {
	words := make([]string, len(c.Args))
	for i, a := range c.Args {
		switch {
		case a.Var != "":
			v, ok := k.vars.Text(a.Var)
			if !ok {
				return fmt.Errorf("undefined variable \"%s\"", a.Var)
			}
			words[i] = v
		case strings.HasPrefix(a.Text, "::"):
			words[i] = a.Text[1:]
		default:
			words[i] = a.Text
		}
	}
	line := strings.Join(words, " ")
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	if c.Kind == lang.ShellCommand {
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("shell command %q failed: %w", line, err)
		}
		return nil
	}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("shell command %q failed: %w", line, err)
	}
	text := strings.TrimSpace(string(out))
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return fmt.Errorf("shell command %q must return an integer (not %q)", line, text)
	}
	k.vars.Set(c.Var, lang.Int(n))
	return nil
}

// sql runs an SQL command by the workload's protocol.
func (k *worker) sql(ctx context.Context, c *lang.Command) error {
	for i := range c.Queries {
		count(k.q, c.Queries[i].Text)
	}
	if k.r.protocol == ProtocolSimple {
		parts := make([]string, len(c.Queries))
		for i, q := range c.Queries {
			parts[i] = q.Interpolate(k.vars.Text)
		}
		if c.Result != lang.ResultNone {
			return k.store(ctx, c, parts, nil)
		}
		return k.c.Exec(ctx, strings.Join(parts, ";\n"))
	}
	q := &c.Queries[0]
	text, names := q.Parameterize(func(int) string { return "?" })
	args := make([]any, len(names))
	for i, n := range names {
		a, err := k.arg(n)
		if err != nil {
			return err
		}
		args[i] = a
	}
	if c.Result != lang.ResultNone {
		return k.store(ctx, c, []string{text}, args)
	}
	if k.r.protocol == ProtocolExtended {
		return k.c.QueryRows(ctx, text, args, func([]any) error { return nil })
	}
	st, err := k.prepare(ctx, q, text)
	if err != nil {
		return err
	}
	_, err = st.Query(ctx, args...)
	return err
}

// prepare returns q's statement (text, with '?' placeholders), prepared
// on its first use.
func (k *worker) prepare(ctx context.Context, q *lang.Query, text string) (engine.Stmt, error) {
	if st, ok := k.stmts[q]; ok {
		return st, nil
	}
	st, err := k.c.Prepare(ctx, text)
	if err != nil {
		return nil, err
	}
	k.stmts[q] = st
	return st, nil
}

// queue adds SQL command pc to the pipeline: a transaction's BEGIN or
// COMMIT (END) as the batch's own, any other query as its prepared
// statement (prepared on first use, before the pipeline is sent) with
// its parameters bound now, as pgbench binds them when it queues.
func (k *worker) queue(ctx context.Context, c *lang.Command, pc int) error {
	q := &c.Queries[0]
	count(k.q, q.Text)
	switch k.scripts[k.current].tx[c] {
	case txBegin:
		k.batch.Begin()
		k.batchCmds = append(k.batchCmds, pc)
		return nil
	case txCommit:
		k.batch.Commit()
		k.batchCmds = append(k.batchCmds, pc)
		return nil
	}
	text, names := q.Parameterize(func(int) string { return "?" })
	args := make([]any, len(names))
	for i, n := range names {
		a, err := k.arg(n)
		if err != nil {
			return err
		}
		args[i] = a
	}
	st, err := k.prepare(ctx, q, text)
	if err != nil {
		return err
	}
	k.batch.Query(st, args...)
	k.batchCmds = append(k.batchCmds, pc)
	return nil
}

// flush sends the queued statements and sync points together
// (\endpipeline): one round trip on PostgreSQL, a Sync at each
// \syncpipeline and one at the end. A statement that fails fails the
// transaction as its command's error (the server skips the rest of its
// segment, up to the next sync point, and runs the segments after it).
func (k *worker) flush(ctx context.Context) error {
	if k.batch.Len() == 0 {
		return nil
	}
	err := k.batch.Send(ctx, k.c)
	k.batch.Reset()
	var be *engine.BatchError
	if errors.As(err, &be) && be.Index < len(k.batchCmds) {
		err = &pipelineError{cmd: k.batchCmds[be.Index], err: be.Err}
	}
	k.batchCmds = k.batchCmds[:0]
	return err
}

// pipelineError is the error of a command queued in a pipeline, which
// its \endpipeline reports.
type pipelineError struct {
	cmd int
	err error
}

func (e *pipelineError) Error() string { return e.err.Error() }
func (e *pipelineError) Unwrap() error { return e.err }

// pipelineAt returns s's first \startpipeline, or nil.
func pipelineAt(s *lang.Script) *lang.Command {
	for _, c := range s.Commands {
		if c.Kind == lang.StartPipelineCommand {
			return c
		}
	}
	return nil
}

// arg is a variable as a query's parameter: its value typed (an integer,
// a double, a boolean or NULL) when it reads as one, its text otherwise.
func (k *worker) arg(name string) (any, error) {
	v, ok, err := k.vars.Value(name)
	if !ok {
		return nil, fmt.Errorf("undefined variable \"%s\"", name)
	}
	if err != nil {
		t, _ := k.vars.Text(name)
		return t, nil
	}
	switch v.Kind() {
	case lang.KindInt:
		i, _ := v.AsInt()
		return i, nil
	case lang.KindDouble:
		f, _ := v.AsDouble()
		return f, nil
	case lang.KindBool:
		b, _ := v.AsBool()
		return b, nil
	}
	return nil, nil
}

// count counts a query as sysbench does: SELECT (and WITH, VALUES, TABLE,
// SHOW) a read; INSERT, UPDATE, DELETE, MERGE, REPLACE, COPY a write; the
// rest (BEGIN, END, SET, …) other.
func count(q *workload.Queries, text string) {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n' || text[i] == '(') {
		i++
	}
	j := i
	for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z') {
		j++
	}
	word := text[i:j]
	for _, w := range []string{"SELECT", "WITH", "VALUES", "TABLE", "SHOW"} {
		if strings.EqualFold(word, w) {
			q.Reads++
			return
		}
	}
	for _, w := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "COPY"} {
		if strings.EqualFold(word, w) {
			q.Writes++
			return
		}
	}
	q.Other++
}

// store runs an SQL command that ends in \gset or \aset and stores its
// result in variables as pgbench does, as text: \gset the one row the
// last query must return (earlier queries' rows are ignored), \aset
// every row of every query, the last row of each query winning, a query
// without rows setting nothing. A column becomes the variable named
// Prefix + its name, which must be a valid variable name; a NULL is the
// empty text (pgbench stores what libpq gives for it). args are nil
// under --protocol simple, where queries may be several (a compound),
// sent as one text where the engine returns each one's rows
// (TextQuerier.MultiResults: PostgreSQL), one by one elsewhere; under
// extended and prepared, queries is one query and args its parameters
// (a prepared query goes through the same call: the engines' statement
// caches prepare it).
func (k *worker) store(ctx context.Context, c *lang.Command, queries []string, args []any) error {
	k.res.cmd, k.res.rows, k.res.offset, k.res.badName = c, 0, 0, false
	k.res.last = len(c.Queries) - 1
	k.res.pending = k.res.pending[:0]
	var err error
	if len(queries) > 1 && !k.c.Dialect().Capabilities().MultiResults {
		for i, q := range queries {
			k.res.offset = i
			if err = engine.QueryText(ctx, k.c, q, nil, k.res.fn); err != nil {
				break
			}
		}
	} else {
		err = engine.QueryText(ctx, k.c, strings.Join(queries, ";\n"), args, k.res.fn)
	}
	if err != nil {
		// pgbench stores each result's values as it reads them: an
		// \aset keeps those of the queries before the one that failed,
		// and a column before one that is no variable name is stored.
		if c.Result == lang.ResultAset || k.res.badName {
			for _, v := range k.res.pending {
				k.vars.SetText(v.name, v.text)
			}
		}
		return err
	}
	if c.Result == lang.ResultGset {
		if k.res.rows != 1 {
			return fmt.Errorf("\\gset: query %d: expected one row, got %d", k.res.last, k.res.rows)
		}
	}
	for _, v := range k.res.pending {
		k.vars.SetText(v.name, v.text)
	}
	return nil
}

// results is a worker's state while it reads a \gset's or \aset's
// rows; fn, bound once, is what QueryText calls.
type results struct {
	cmd  *lang.Command
	last int // the index of the command's last query
	// offset is the index of the query sent alone, added to the result
	// numbers QueryText gives.
	offset int
	rows   int // \gset: the rows of the last query
	// badName is set when a column was no variable name.
	badName bool
	// pending are the values to store once the query succeeded (\gset)
	// or the values read so far (\aset), by column.
	pending []pendingVar
	fn      func(result int, cols []string, row [][]byte) error
}

type pendingVar struct{ name, text string }

func (r *results) row(result int, cols []string, row [][]byte) error {
	c := r.cmd
	result += r.offset
	if c.Result == lang.ResultGset {
		if result != r.last {
			return nil
		}
		if r.rows++; r.rows > 1 {
			return nil
		}
	}
	for i, col := range cols {
		name := c.Prefix + col
		if !validVar(name) {
			r.badName = true
			return fmt.Errorf("\\%s: invalid variable name: \"%s\"", resultName(c.Result), name)
		}
		text := string(row[i])
		found := false
		for j := range r.pending {
			if r.pending[j].name == name {
				r.pending[j].text, found = text, true
				break
			}
		}
		if !found {
			r.pending = append(r.pending, pendingVar{name, text})
		}
	}
	return nil
}

func resultName(m lang.ResultMode) string {
	if m == lang.ResultGset {
		return "gset"
	}
	return "aset"
}

// validVar is pgbench's rule for a variable's name: letters, digits,
// underscores and non-ASCII bytes, at least one.
func validVar(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && c != '_' && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// storeAt returns s's first \gset or \aset, or nil.
func storeAt(s *lang.Script) *lang.Command {
	for _, c := range s.Commands {
		if c.Kind == lang.SQLCommand && c.Result != lang.ResultNone {
			return c
		}
	}
	return nil
}
