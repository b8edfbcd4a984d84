package lang

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// CommandKind is what a command of a script does.
type CommandKind uint8

// The kinds of commands.
const (
	// SQLCommand sends one SQL command, or a compound of several separated
	// by \; (Queries), and optionally stores its result (\gset, \aset).
	SQLCommand CommandKind = iota
	// SetCommand is \set Var Expr.
	SetCommand
	// SleepCommand is \sleep Sleep [Unit].
	SleepCommand
	// IfCommand, ElifCommand, ElseCommand and EndifCommand are a
	// conditional block (see Command.Next and Command.End).
	IfCommand
	ElifCommand
	ElseCommand
	EndifCommand
	// StartPipelineCommand, SyncPipelineCommand and EndPipelineCommand
	// are \startpipeline, \syncpipeline and \endpipeline.
	StartPipelineCommand
	SyncPipelineCommand
	EndPipelineCommand
	// ShellCommand is \shell Args; SetShellCommand is \setshell Var Args,
	// storing the command's output (an integer) in Var. Both are refused
	// unless ParseOptions.AllowShell.
	ShellCommand
	SetShellCommand
)

var commandNames = [...]string{"sql", "set", "sleep", "if", "elif", "else", "endif",
	"startpipeline", "syncpipeline", "endpipeline", "shell", "setshell"}

// String is the command's name as a script writes it (without the
// backslash), or "sql".
func (k CommandKind) String() string {
	if int(k) < len(commandNames) {
		return commandNames[k]
	}
	return fmt.Sprintf("CommandKind(%d)", uint8(k))
}

// ResultMode is what an SQL command does with the rows it returns.
type ResultMode uint8

// The result modes.
const (
	// ResultNone discards the rows.
	ResultNone ResultMode = iota
	// ResultGset (\gset): the last query must return exactly one row,
	// whose columns become variables named Prefix + column name.
	ResultGset
	// ResultAset (\aset): every query's rows set variables, the last row
	// of each query winning; a query without rows sets nothing.
	ResultAset
)

// Pos is a place in a script file; Line and Col count from 1, Col in
// characters.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Script is a parsed script file.
type Script struct {
	// Name is the file's name, as given to Parse.
	Name string
	// Commands in the order of the file.
	Commands []*Command
}

// Command is one command of a script.
type Command struct {
	Kind CommandKind
	// Pos is where the command starts: its first character of SQL, or its
	// backslash.
	Pos Pos
	// Source is the command's first line as written, for messages.
	Source string

	// Queries are an SQL command's queries: one, or the parts of a
	// compound (\;). Result and Prefix are its \gset or \aset.
	Queries []Query
	Result  ResultMode
	Prefix  string

	// Var is the variable \set and \setshell assign.
	Var string
	// Expr is the expression of \set, \if and \elif.
	Expr Expr
	// Sleep is \sleep's duration in Unit (time.Second unless written
	// us or ms): a number or a variable.
	Sleep Arg
	Unit  time.Duration
	// Args are the words of \shell and \setshell's command.
	Args []Arg

	// Next is, for \if, \elif and \else, the index of the next branch of
	// the block (its \elif, \else or \endif); End is, for every command
	// of a conditional block, the index of its \endif.
	Next, End int
}

// Arg is a word of a meta-command: Text as written, and Var, the variable
// it names when it is written :name.
type Arg struct {
	Text string
	Var  string
}

// Query is one SQL query with its variable references.
type Query struct {
	// Text is the query as written, without the terminating semicolon and
	// the comments before it.
	Text string
	// Refs are the :name references in Text, in order; references are
	// recognised outside quoted identifiers, dollar quotes and comments
	// (a :: cast is none), in quoted strings too but marked so.
	Refs []Ref

	// memo keeps Parameterize's last answer for the queries Parse
	// returns (nil in a Query built otherwise), which their copies share.
	memo *paramMemo
}

// paramMemo holds a Parameterize answer; Parameterize may be called from
// several clients at once.
type paramMemo struct{ p atomic.Pointer[parameterized] }

// parameterized is Parameterize's answer for the placeholders it was
// computed with.
type parameterized struct {
	placeholders []string
	text         string
	names        []string
}

// Ref is a :name reference in a query: Text[Start:End] is ":name".
// InString marks one inside a quoted string ('… :name …'), which the
// simple protocol replaces, as pgbench's, and parameters do not.
type Ref struct {
	Name       string
	Start, End int
	InString   bool
}

// Interpolate returns the query with each reference replaced by the text
// lookup gives for its name, as pgbench's simple protocol does; a
// reference to a name lookup does not know stays as written.
//
// It looks every name up once, then writes the query into one string of
// the right size: one allocation.
func (q Query) Interpolate(lookup func(name string) (string, bool)) string {
	if len(q.Refs) == 0 {
		return q.Text
	}
	var buf [8]string // the values of the first references, looked up once
	vals := buf[:0]
	if len(q.Refs) > len(buf) {
		vals = make([]string, 0, len(q.Refs))
	}
	n := len(q.Text)
	for _, r := range q.Refs {
		v, ok := lookup(r.Name)
		if !ok {
			v = q.Text[r.Start:r.End] // stays as written
		}
		vals = append(vals, v)
		n += len(v) - (r.End - r.Start)
	}
	var b strings.Builder
	b.Grow(n)
	last := 0
	for i, r := range q.Refs {
		b.WriteString(q.Text[last:r.Start])
		b.WriteString(vals[i])
		last = r.End
	}
	b.WriteString(q.Text[last:])
	return b.String()
}

// Parameterize returns the query with its i-th reference outside quoted
// strings (from 1) replaced by placeholder(i), and the names the
// parameters take their values from, in order.
//
// A query from Parse remembers its answer: asked again with the same
// placeholders (placeholder is called once per parameter to check), it
// returns the same text and names without allocating. The names are
// shared then: the caller must not change them.
func (q Query) Parameterize(placeholder func(i int) string) (string, []string) {
	if q.memo != nil {
		if m := q.memo.p.Load(); m != nil && samePlaceholders(m.placeholders, placeholder) {
			return m.text, m.names
		}
	}
	text, names := q.parameterize(placeholder)
	if q.memo != nil {
		ph := make([]string, len(names))
		for i := range ph {
			ph[i] = placeholder(i + 1)
		}
		q.memo.p.Store(&parameterized{placeholders: ph, text: text, names: names})
	}
	return text, names
}

func samePlaceholders(want []string, placeholder func(i int) string) bool {
	for i, p := range want {
		if placeholder(i+1) != p {
			return false
		}
	}
	return true
}

func (q Query) parameterize(placeholder func(i int) string) (string, []string) {
	var b strings.Builder
	names := make([]string, 0, len(q.Refs))
	last := 0
	for _, r := range q.Refs {
		if r.InString {
			continue
		}
		b.WriteString(q.Text[last:r.Start])
		b.WriteString(placeholder(len(names) + 1))
		names = append(names, r.Name)
		last = r.End
	}
	b.WriteString(q.Text[last:])
	return b.String(), names
}

// SyntaxError is an error in a script, at Pos, on the line Source, with
// the caret under Pos.Col.
type SyntaxError struct {
	Pos Pos
	// Command names the meta-command the error is in ("set"), if any.
	Command string
	Msg     string
	Source  string
}

// Error renders the error as file:line:col, the message, the line and a
// caret under the column.
func (e *SyntaxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Pos, e.Msg)
	if e.Command != "" {
		fmt.Fprintf(&b, " in command \"%s\"", e.Command)
	}
	if e.Source != "" {
		b.WriteString("\n" + e.Source + "\n")
		// The caret sits under the column, tabs kept so that it lines up.
		col := 0
		for _, r := range e.Source {
			if col >= e.Pos.Col-1 {
				break
			}
			if r == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
			col++
		}
		b.WriteString("^ error found here")
	}
	return b.String()
}

// ParseOptions are choices of Parse.
type ParseOptions struct {
	// AllowShell accepts \shell and \setshell, which run commands on the
	// client.
	AllowShell bool
}

// Parse reads a pgbench script: SQL commands ending at a semicolon (not
// one inside quotes, dollar quotes, comments or parentheses) or at a
// meta-command, and meta-commands, each from a backslash to the end of
// its line (a backslash before a line break continues it). name is the
// file's name for messages. The first error is returned, a *SyntaxError.
func Parse(name, src string, opts ParseOptions) (*Script, error) {
	p := &scriptParser{name: name, src: src, opts: opts, script: &Script{Name: name}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if len(p.script.Commands) == 0 {
		return nil, &SyntaxError{Pos: Pos{File: name, Line: 1, Col: 1}, Msg: "no commands in script"}
	}
	return p.script, nil
}

type scriptParser struct {
	name   string
	src    string
	opts   ParseOptions
	script *Script

	// The SQL command being read: its queries so far, the current query's
	// start (-1 before its first character of content) and references.
	queries  []Query
	qStart   int
	refs     []Ref
	cmdStart int
	depth    int

	ifs      []int // open \if blocks: index of their \if
	branches [][]int
	pipeline *Command
}

func (p *scriptParser) pos(off int) Pos {
	line := 1 + strings.Count(p.src[:off], "\n")
	ls := strings.LastIndexByte(p.src[:off], '\n') + 1
	return Pos{File: p.name, Line: line, Col: 1 + utf8.RuneCountInString(p.src[ls:off])}
}

func (p *scriptParser) lineAt(off int) string {
	ls := strings.LastIndexByte(p.src[:off], '\n') + 1
	le := strings.IndexByte(p.src[off:], '\n')
	if le < 0 {
		le = len(p.src) - off
	}
	return strings.TrimRight(p.src[ls:off+le], "\r")
}

func (p *scriptParser) errAt(off int, cmd, format string, args ...any) error {
	return &SyntaxError{Pos: p.pos(off), Command: cmd, Msg: fmt.Sprintf(format, args...), Source: p.lineAt(off)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// endQuery closes the current query at off (exclusive).
func (p *scriptParser) endQuery(off int) {
	if p.qStart < 0 {
		return
	}
	text := strings.TrimRight(p.src[p.qStart:off], " \t\r\n\f\v")
	refs := make([]Ref, len(p.refs))
	for i, r := range p.refs {
		refs[i] = Ref{Name: r.Name, Start: r.Start - p.qStart, End: r.End - p.qStart, InString: r.InString}
	}
	p.queries = append(p.queries, Query{Text: text, Refs: refs, memo: &paramMemo{}})
	p.qStart, p.refs = -1, nil
}

// endSQL closes the current SQL command, if it has any content.
func (p *scriptParser) endSQL(off int) {
	p.endQuery(off)
	if len(p.queries) > 0 {
		p.script.Commands = append(p.script.Commands, &Command{
			Kind: SQLCommand, Pos: p.pos(p.cmdStart), Source: p.lineAt(p.cmdStart), Queries: p.queries,
		})
	}
	p.queries, p.depth = nil, 0
}

func (p *scriptParser) content(off int) {
	if p.qStart < 0 {
		p.qStart = off
		if len(p.queries) == 0 {
			p.cmdStart = off
		}
	}
}

func (p *scriptParser) parse() error {
	src := p.src
	p.qStart = -1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case isSpace(c):
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			start, nest := i, 0
			for {
				if i >= len(src) {
					return p.errAt(start, "", "unterminated /* comment")
				}
				if strings.HasPrefix(src[i:], "/*") {
					nest++
					i += 2
				} else if strings.HasPrefix(src[i:], "*/") {
					nest--
					i += 2
					if nest == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c == '\'' || c == '"' || c == '`':
			p.content(i)
			escapes := c == '\'' && i > 0 && (src[i-1] == 'E' || src[i-1] == 'e') && (i < 2 || !isWordByte(src[i-2]))
			end, ok := closeQuote(src, i, c, escapes)
			if !ok {
				return p.errAt(i, "", "unterminated quoted %s", map[byte]string{'\'': "string", '"': "identifier", '`': "identifier"}[c])
			}
			if c == '\'' {
				p.stringRefs(i, end)
			}
			i = end
		case c == '$' && (i == 0 || !isWordByte(src[i-1])) && dollarTag(src[i:]) != "":
			p.content(i)
			tag := dollarTag(src[i:])
			end := strings.Index(src[i+len(tag):], tag)
			if end < 0 {
				return p.errAt(i, "", "unterminated dollar-quoted string")
			}
			i += len(tag) + end + len(tag)
		case c == ':':
			p.content(i)
			if i+1 < len(src) && src[i+1] == ':' {
				for i < len(src) && src[i] == ':' {
					i++
				}
				continue
			}
			j := i + 1
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			if j == i+1 {
				i++ // a lone colon
				continue
			}
			p.refs = append(p.refs, Ref{Name: src[i+1 : j], Start: i, End: j})
			i = j
		case c == '(':
			p.content(i)
			p.depth++
			i++
		case c == ')':
			p.content(i)
			if p.depth > 0 {
				p.depth--
			}
			i++
		case c == ';':
			if p.depth > 0 {
				i++
				continue
			}
			p.endSQL(i)
			i++
		case c == '\\' && strings.HasPrefix(src[i:], "\\;"):
			// A compound query: the part so far is one of its queries.
			p.endQuery(i)
			i += 2
		case c == '\\':
			end, err := p.meta(i)
			if err != nil {
				return err
			}
			i = end
		default:
			p.content(i)
			i++
		}
	}
	p.endSQL(len(src))
	if n := len(p.ifs); n > 0 {
		c := p.script.Commands[p.ifs[n-1]]
		return &SyntaxError{Pos: c.Pos, Command: "if", Msg: "\\if without matching \\endif", Source: c.Source}
	}
	if p.pipeline != nil {
		c := p.pipeline
		return &SyntaxError{Pos: c.Pos, Command: "startpipeline", Msg: "\\startpipeline without \\endpipeline", Source: c.Source}
	}
	return nil
}

// stringRefs records the :name references inside the quoted string
// src[from:to], which only the simple protocol replaces, as pgbench's.
func (p *scriptParser) stringRefs(from, to int) {
	src := p.src
	for j := from + 1; j < to-1; j++ {
		if src[j] != ':' {
			continue
		}
		if src[j+1] == ':' {
			for j+1 < to && src[j+1] == ':' {
				j++
			}
			continue
		}
		k := j + 1
		for k < to-1 && isWordByte(src[k]) && src[k] != '\'' {
			k++
		}
		if k > j+1 {
			p.refs = append(p.refs, Ref{Name: src[j+1 : k], Start: j, End: k, InString: true})
			j = k - 1
		}
	}
}

// closeQuote returns the offset after the quote that closes the one at
// src[i]; a doubled quote is part of the text, and so is a backslash
// escape in an E” string.
func closeQuote(src string, i int, q byte, escapes bool) (int, bool) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if escapes {
				j++
			}
		case q:
			if j+1 < len(src) && src[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

// dollarTag returns the dollar quote ($$ or $tag$) s starts with, or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1]
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || j > 1 && c >= '0' && c <= '9') {
			return ""
		}
	}
	return ""
}

// metaLine returns the end of the meta-command starting at off: the line
// break ending its line, a backslash before a line break continuing it.
func metaLine(src string, off int) int {
	for j := off; j < len(src); j++ {
		if src[j] == '\n' {
			if j > 0 && src[j-1] == '\\' || j > 1 && src[j-1] == '\r' && src[j-2] == '\\' {
				continue
			}
			return j
		}
	}
	return len(src)
}

type word struct {
	text string
	off  int
}

// words splits src[from:to] at white space and line continuations.
func words(src string, from, to int) []word {
	var ws []word
	for j := from; j < to; {
		if isSpace(src[j]) || src[j] == '\\' && j+1 < to && (src[j+1] == '\n' || src[j+1] == '\r') {
			j++
			continue
		}
		start := j
		for j < to && !isSpace(src[j]) {
			j++
		}
		ws = append(ws, word{src[start:j], start})
	}
	return ws
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isIdentPart(r) {
			return false
		}
	}
	return true
}

// meta parses the meta-command whose backslash is at off and returns
// the offset after it.
func (p *scriptParser) meta(off int) (int, error) {
	src := p.src
	j := off + 1
	for j < len(src) && (src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] == '_') {
		j++
	}
	name := strings.ToLower(src[off+1 : j])
	end := metaLine(src, j)
	args := words(src, j, end)
	cmd := &Command{Pos: p.pos(off), Source: p.lineAt(off)}
	errAt := func(o int, format string, a ...any) error { return p.errAt(o, name, format, a...) }
	wantArgs := func(n int) error {
		if len(args) > n {
			return errAt(args[n].off, "unexpected argument")
		}
		return nil
	}
	switch name {
	case "gset", "aset":
		// Ends the SQL command being read, or follows the one just ended.
		p.endSQL(off)
		if len(args) > 1 {
			return 0, errAt(args[1].off, "too many arguments")
		}
		n := len(p.script.Commands)
		if n == 0 || p.script.Commands[n-1].Kind != SQLCommand || p.script.Commands[n-1].Result != ResultNone {
			return 0, errAt(off, "\\%s must follow an SQL command", name)
		}
		last := p.script.Commands[n-1]
		last.Result = map[string]ResultMode{"gset": ResultGset, "aset": ResultAset}[name]
		if len(args) == 1 {
			last.Prefix = args[0].text
		}
		return end, nil
	}
	// Any other meta-command ends the SQL command being read.
	p.endSQL(off)
	index := len(p.script.Commands)
	switch name {
	case "set":
		cmd.Kind = SetCommand
		if len(args) < 2 {
			return 0, errAt(off, "missing argument")
		}
		if !validName(args[0].text) {
			return 0, errAt(args[0].off, "invalid variable name \"%s\"", args[0].text)
		}
		cmd.Var = args[0].text
		e, err := p.expr(name, args[1].off, end)
		if err != nil {
			return 0, err
		}
		cmd.Expr = e
	case "if", "elif":
		cmd.Kind = IfCommand
		if name == "elif" {
			cmd.Kind = ElifCommand
		}
		if len(args) == 0 {
			return 0, errAt(off, "missing argument")
		}
		e, err := p.expr(name, args[0].off, end)
		if err != nil {
			return 0, err
		}
		cmd.Expr = e
	case "else":
		cmd.Kind = ElseCommand
	case "endif":
		cmd.Kind = EndifCommand
	case "sleep":
		cmd.Kind = SleepCommand
		if err := p.sleep(cmd, name, off, args); err != nil {
			return 0, err
		}
	case "startpipeline", "syncpipeline", "endpipeline":
		cmd.Kind = map[string]CommandKind{"startpipeline": StartPipelineCommand,
			"syncpipeline": SyncPipelineCommand, "endpipeline": EndPipelineCommand}[name]
		if err := wantArgs(0); err != nil {
			return 0, err
		}
		switch {
		case name == "startpipeline" && p.pipeline != nil:
			return 0, errAt(off, "already in a pipeline (\\startpipeline at line %d)", p.pipeline.Pos.Line)
		case name == "startpipeline":
			p.pipeline = cmd
		case p.pipeline == nil:
			return 0, errAt(off, "\\%s outside a pipeline", name)
		case name == "endpipeline":
			p.pipeline = nil
		}
	case "shell", "setshell":
		cmd.Kind = ShellCommand
		if !p.opts.AllowShell {
			return 0, errAt(off, "\\%s runs a command on the client and is refused unless shell commands are allowed", name)
		}
		if name == "setshell" {
			cmd.Kind = SetShellCommand
			if len(args) == 0 {
				return 0, errAt(off, "missing argument")
			}
			if !validName(args[0].text) {
				return 0, errAt(args[0].off, "invalid variable name \"%s\"", args[0].text)
			}
			cmd.Var = args[0].text
			args = args[1:]
		}
		if len(args) == 0 {
			return 0, errAt(off, "missing command")
		}
		for _, a := range args {
			cmd.Args = append(cmd.Args, argOf(a.text))
		}
	default:
		return 0, errAt(off, "invalid command \\%s", name)
	}
	if cmd.Kind == ElseCommand || cmd.Kind == EndifCommand {
		if err := wantArgs(0); err != nil {
			return 0, err
		}
	}
	if err := p.block(cmd, index, name); err != nil {
		return 0, err
	}
	p.script.Commands = append(p.script.Commands, cmd)
	return end, nil
}

// block links the commands of conditional blocks.
func (p *scriptParser) block(cmd *Command, index int, name string) error {
	n := len(p.ifs)
	switch cmd.Kind {
	case IfCommand:
		p.ifs = append(p.ifs, index)
		p.branches = append(p.branches, []int{index})
		return nil
	case ElifCommand, ElseCommand, EndifCommand:
	default:
		return nil
	}
	if n == 0 {
		return &SyntaxError{Pos: cmd.Pos, Command: name, Msg: fmt.Sprintf("\\%s without matching \\if", name), Source: cmd.Source}
	}
	br := p.branches[n-1]
	prev := p.script.Commands[br[len(br)-1]]
	if prev.Kind == ElseCommand && cmd.Kind != EndifCommand {
		return &SyntaxError{Pos: cmd.Pos, Command: name, Msg: fmt.Sprintf("\\%s after \\else", name), Source: cmd.Source}
	}
	prev.Next = index
	if cmd.Kind != EndifCommand {
		p.branches[n-1] = append(br, index)
		return nil
	}
	for _, b := range br {
		p.script.Commands[b].End = index
	}
	cmd.End = index
	p.ifs, p.branches = p.ifs[:n-1], p.branches[:n-1]
	return nil
}

func argOf(s string) Arg {
	if len(s) > 1 && s[0] == ':' && validName(s[1:]) {
		return Arg{Text: s, Var: s[1:]}
	}
	return Arg{Text: s}
}

func (p *scriptParser) expr(cmd string, from, to int) (Expr, error) {
	e, err := ParseExpr(p.src[from:to])
	if err != nil {
		ee := err.(*ExprError)
		return nil, p.errAt(from+ee.Pos, cmd, "%s", ee.Msg)
	}
	return e, nil
}

// sleep reads \sleep's arguments as pgbench does: a number or :variable,
// then an optional unit us, ms or s, which may follow the number without a
// space (10ms).
func (p *scriptParser) sleep(cmd *Command, name string, off int, args []word) error {
	if len(args) == 0 {
		return p.errAt(off, name, "missing argument")
	}
	if len(args) > 2 {
		return p.errAt(args[2].off, name, "too many arguments")
	}
	amount, unit := args[0], word{}
	if len(args) == 2 {
		unit = args[1]
	}
	if strings.HasPrefix(amount.text, ":") {
		if !validName(amount.text[1:]) {
			return p.errAt(amount.off, name, "invalid variable name \"%s\"", amount.text[1:])
		}
	} else {
		k := 0
		if k < len(amount.text) && (amount.text[k] == '+' || amount.text[k] == '-') {
			k++
		}
		digits := k
		for k < len(amount.text) && amount.text[k] >= '0' && amount.text[k] <= '9' {
			k++
		}
		if k == digits || k < len(amount.text) && len(args) == 2 {
			return p.errAt(amount.off, name, "invalid sleep time, must be an integer")
		}
		if k < len(amount.text) {
			unit = word{amount.text[k:], amount.off + k}
			amount.text = amount.text[:k]
		}
	}
	cmd.Sleep = argOf(amount.text)
	cmd.Unit = time.Second
	if unit.text != "" {
		switch strings.ToLower(unit.text) {
		case "us":
			cmd.Unit = time.Microsecond
		case "ms":
			cmd.Unit = time.Millisecond
		case "s":
		default:
			return p.errAt(unit.off, name, "unrecognized time unit, must be us, ms or s")
		}
	}
	return nil
}
