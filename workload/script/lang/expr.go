package lang

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Expr is a parsed expression of \set, \if or \elif. Evaluate it with
// Eval. An Expr is immutable and safe for concurrent use.
type Expr interface {
	// String renders the expression fully parenthesised.
	String() string
	exprNode()
}

type (
	constExpr struct{ v Value }
	varExpr   struct{ name string }
	// binaryExpr is an operator; unary minus and ~ are rewritten as
	// 0 - x and -1 # x, as pgbench does.
	binaryExpr struct {
		op   string
		l, r Expr
	}
	notExpr struct{ x Expr }
	andExpr struct{ l, r Expr }
	orExpr  struct{ l, r Expr }
	isExpr  struct {
		x   Expr
		not bool
		v   Value // NULL, true or false
	}
	caseExpr struct {
		when, then []Expr
		els        Expr // nil: NULL
	}
	callExpr struct {
		fn   *function
		args []Expr
	}
)

func (constExpr) exprNode()  {}
func (varExpr) exprNode()    {}
func (binaryExpr) exprNode() {}
func (notExpr) exprNode()    {}
func (andExpr) exprNode()    {}
func (orExpr) exprNode()     {}
func (isExpr) exprNode()     {}
func (caseExpr) exprNode()   {}
func (callExpr) exprNode()   {}

func (e constExpr) String() string {
	if e.v.kind == KindDouble {
		return e.v.String() + "::double"
	}
	return e.v.String()
}
func (e varExpr) String() string { return ":" + e.name }
func (e binaryExpr) String() string {
	return "(" + e.l.String() + " " + e.op + " " + e.r.String() + ")"
}
func (e notExpr) String() string { return "(NOT " + e.x.String() + ")" }
func (e andExpr) String() string { return "(" + e.l.String() + " AND " + e.r.String() + ")" }
func (e orExpr) String() string  { return "(" + e.l.String() + " OR " + e.r.String() + ")" }
func (e isExpr) String() string {
	s := "(" + e.x.String() + " IS "
	if e.not {
		s += "NOT "
	}
	return s + e.v.String() + ")"
}
func (e caseExpr) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for i := range e.when {
		b.WriteString(" WHEN " + e.when[i].String() + " THEN " + e.then[i].String())
	}
	if e.els != nil {
		b.WriteString(" ELSE " + e.els.String())
	}
	b.WriteString(" END")
	return b.String()
}
func (e callExpr) String() string {
	args := make([]string, len(e.args))
	for i, a := range e.args {
		args[i] = a.String()
	}
	return e.fn.name + "(" + strings.Join(args, ", ") + ")"
}

// ExprError is a syntax error in an expression, at byte offset Pos of its
// text.
type ExprError struct {
	Pos int
	Msg string
}

func (e *ExprError) Error() string { return e.Msg }

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tBigMin // 9223372036854775808, valid only after unary minus
	tDouble
	tVar
	tIdent
	tKeyword
	tOp
)

type token struct {
	kind tokKind
	text string // operator, keyword (upper case), identifier, variable name
	i    int64
	f    float64
	pos  int
}

var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IS": true, "ISNULL": true, "NOTNULL": true,
	"NULL": true, "TRUE": true, "FALSE": true, "CASE": true, "WHEN": true, "THEN": true,
	"ELSE": true, "END": true,
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// lexExpr splits an expression into tokens. A backslash before a line
// break continues the expression on the next line.
func lexExpr(src string) ([]token, error) {
	var toks []token
	for p := 0; p < len(src); {
		c := src[p]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			p++
		case c == '\\' && (strings.HasPrefix(src[p+1:], "\n") || strings.HasPrefix(src[p+1:], "\r\n")):
			p++
		case c >= '0' && c <= '9' || c == '.' && p+1 < len(src) && src[p+1] >= '0' && src[p+1] <= '9':
			start := p
			for p < len(src) && src[p] >= '0' && src[p] <= '9' {
				p++
			}
			isDouble := false
			if p < len(src) && src[p] == '.' {
				isDouble = true
				p++
				for p < len(src) && src[p] >= '0' && src[p] <= '9' {
					p++
				}
			}
			if p < len(src) && (src[p] == 'e' || src[p] == 'E') {
				q := p + 1
				if q < len(src) && (src[q] == '+' || src[q] == '-') {
					q++
				}
				if q < len(src) && src[q] >= '0' && src[q] <= '9' {
					for q < len(src) && src[q] >= '0' && src[q] <= '9' {
						q++
					}
					p = q
					isDouble = true
				}
			}
			text := src[start:p]
			if isDouble {
				f, err := strconv.ParseFloat(text, 64)
				if err != nil && !isRangeErr(err) {
					return nil, &ExprError{start, fmt.Sprintf("invalid double constant (%s)", text)}
				}
				toks = append(toks, token{kind: tDouble, f: f, text: text, pos: start})
				continue
			}
			if text == "9223372036854775808" {
				toks = append(toks, token{kind: tBigMin, text: text, pos: start})
				continue
			}
			i, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return nil, &ExprError{start, fmt.Sprintf("bigint constant overflow (%s)", text)}
			}
			toks = append(toks, token{kind: tInt, i: i, text: text, pos: start})
		case c == ':':
			start := p
			p++
			q := p
			for q < len(src) {
				r, n := utf8.DecodeRuneInString(src[q:])
				if !isIdentPart(r) {
					break
				}
				q += n
			}
			if q == p {
				return nil, &ExprError{start, "syntax error"}
			}
			toks = append(toks, token{kind: tVar, text: src[p:q], pos: start})
			p = q
		default:
			r, n := utf8.DecodeRuneInString(src[p:])
			if isIdentStart(r) {
				start := p
				for p < len(src) {
					r, n := utf8.DecodeRuneInString(src[p:])
					if !isIdentPart(r) {
						break
					}
					p += n
				}
				word := src[start:p]
				if up := strings.ToUpper(word); keywords[up] {
					toks = append(toks, token{kind: tKeyword, text: up, pos: start})
				} else {
					toks = append(toks, token{kind: tIdent, text: word, pos: start})
				}
				continue
			}
			op := ""
			for _, o := range []string{"<=", ">=", "<>", "!=", "<<", ">>", "+", "-", "*", "/", "%", "(", ")", ",", "<", ">", "=", "&", "|", "#", "~"} {
				if strings.HasPrefix(src[p:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, &ExprError{p, fmt.Sprintf("unexpected character %q", string(r))}
			}
			_ = n
			toks = append(toks, token{kind: tOp, text: op, pos: p})
			p += len(op)
		}
	}
	return append(toks, token{kind: tEOF, pos: len(src)}), nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// ParseExpr parses an expression of pgbench's \set grammar. The operators,
// from the loosest binding: OR; AND; NOT; IS [NOT] NULL|TRUE|FALSE,
// ISNULL, NOTNULL; the comparisons = <> != < <= > >= (not chained); the
// bitwise | # & << >>; + -; * / %; unary + - ~. Functions and keywords
// are case-insensitive.
func ParseExpr(src string) (Expr, error) {
	toks, err := lexExpr(src)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks}
	if p.peek().kind == tEOF {
		return nil, &ExprError{0, "missing expression"}
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, &ExprError{t.pos, "syntax error"}
	}
	return e, nil
}

type exprParser struct {
	toks []token
	at   int
}

func (p *exprParser) peek() token { return p.toks[p.at] }
func (p *exprParser) next() token {
	t := p.toks[p.at]
	if t.kind != tEOF {
		p.at++
	}
	return t
}
func (p *exprParser) isKw(kw string) bool {
	t := p.peek()
	return t.kind == tKeyword && t.text == kw
}
func (p *exprParser) isOp(ops ...string) bool {
	t := p.peek()
	if t.kind != tOp {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}
func (p *exprParser) syntax() error { return &ExprError{p.peek().pos, "syntax error"} }

func (p *exprParser) or() (Expr, error) {
	l, err := p.and()
	for err == nil && p.isKw("OR") {
		p.next()
		var r Expr
		if r, err = p.and(); err == nil {
			l = orExpr{l, r}
		}
	}
	return l, err
}

func (p *exprParser) and() (Expr, error) {
	l, err := p.not()
	for err == nil && p.isKw("AND") {
		p.next()
		var r Expr
		if r, err = p.not(); err == nil {
			l = andExpr{l, r}
		}
	}
	return l, err
}

func (p *exprParser) not() (Expr, error) {
	if p.isKw("NOT") {
		p.next()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return notExpr{x}, nil
	}
	return p.is()
}

func (p *exprParser) is() (Expr, error) {
	x, err := p.cmp()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.isKw("ISNULL"):
			p.next()
			x = isExpr{x: x}
		case p.isKw("NOTNULL"):
			p.next()
			x = isExpr{x: x, not: true}
		case p.isKw("IS"):
			p.next()
			e := isExpr{x: x}
			if p.isKw("NOT") {
				p.next()
				e.not = true
			}
			switch {
			case p.isKw("NULL"):
			case p.isKw("TRUE"):
				e.v = Bool(true)
			case p.isKw("FALSE"):
				e.v = Bool(false)
			default:
				return nil, p.syntax()
			}
			p.next()
			x = e
		default:
			return x, nil
		}
	}
}

func (p *exprParser) cmp() (Expr, error) {
	l, err := p.bit()
	if err != nil {
		return nil, err
	}
	if p.isOp("=", "<>", "!=", "<", "<=", ">", ">=") {
		op := p.next().text
		r, err := p.bit()
		if err != nil {
			return nil, err
		}
		if op == "!=" {
			op = "<>"
		}
		return binaryExpr{op, l, r}, nil
	}
	return l, nil
}

func (p *exprParser) binary(next func() (Expr, error), ops ...string) (Expr, error) {
	l, err := next()
	for err == nil && p.isOp(ops...) {
		op := p.next().text
		var r Expr
		if r, err = next(); err == nil {
			l = binaryExpr{op, l, r}
		}
	}
	return l, err
}

func (p *exprParser) bit() (Expr, error) { return p.binary(p.add, "|", "#", "&", "<<", ">>") }
func (p *exprParser) add() (Expr, error) { return p.binary(p.mul, "+", "-") }
func (p *exprParser) mul() (Expr, error) { return p.binary(p.unary, "*", "/", "%") }

func (p *exprParser) unary() (Expr, error) {
	switch {
	case p.isOp("+"):
		p.next()
		return p.unary()
	case p.isOp("-"):
		p.next()
		if p.peek().kind == tBigMin {
			p.next()
			return constExpr{Int(-9223372036854775808)}, nil
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return binaryExpr{"-", constExpr{Int(0)}, x}, nil
	case p.isOp("~"):
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return binaryExpr{"#", constExpr{Int(-1)}, x}, nil
	}
	return p.primary()
}

func (p *exprParser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.next()
		return constExpr{Int(t.i)}, nil
	case tDouble:
		p.next()
		return constExpr{Double(t.f)}, nil
	case tVar:
		p.next()
		return varExpr{t.text}, nil
	case tOp:
		if t.text == "(" {
			p.next()
			e, err := p.or()
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, p.syntax()
			}
			p.next()
			return e, nil
		}
	case tKeyword:
		switch t.text {
		case "NULL":
			p.next()
			return constExpr{Null()}, nil
		case "TRUE", "FALSE":
			p.next()
			return constExpr{Bool(t.text == "TRUE")}, nil
		case "CASE":
			return p.caseExpr()
		}
	case tIdent:
		return p.call()
	}
	return nil, p.syntax()
}

func (p *exprParser) caseExpr() (Expr, error) {
	p.next() // CASE
	var c caseExpr
	for p.isKw("WHEN") {
		p.next()
		w, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.isKw("THEN") {
			return nil, p.syntax()
		}
		p.next()
		th, err := p.or()
		if err != nil {
			return nil, err
		}
		c.when = append(c.when, w)
		c.then = append(c.then, th)
	}
	if len(c.when) == 0 {
		return nil, p.syntax()
	}
	if p.isKw("ELSE") {
		p.next()
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		c.els = e
	}
	if !p.isKw("END") {
		return nil, p.syntax()
	}
	p.next()
	return c, nil
}

func (p *exprParser) call() (Expr, error) {
	name := p.next()
	if !p.isOp("(") {
		return nil, p.syntax()
	}
	p.next()
	var args []Expr
	if !p.isOp(")") {
		for {
			a, err := p.or()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if !p.isOp(",") {
				break
			}
			p.next()
		}
	}
	if !p.isOp(")") {
		return nil, p.syntax()
	}
	p.next()
	fn := lookupFunction(name.text)
	if fn == nil {
		return nil, &ExprError{name.pos, fmt.Sprintf("unexpected function name (%s)", name.text)}
	}
	switch {
	case fn.minArgs < 0 && len(args) == 0:
		return nil, &ExprError{name.pos, fmt.Sprintf("at least one argument expected (%s)", fn.name)}
	case fn.minArgs >= 0 && (len(args) < fn.minArgs || len(args) > fn.maxArgs):
		return nil, &ExprError{name.pos, fmt.Sprintf("unexpected number of arguments (%s)", fn.name)}
	}
	if fn.seeded && len(args) == fn.maxArgs-1 {
		// hash and permute default their seed to :default_seed.
		args = append(args, varExpr{"default_seed"})
	}
	return callExpr{fn, args}, nil
}
