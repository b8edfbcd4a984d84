// Package lang is pgbench's script language: the parser of script files
// (Parse) and the expressions of \set, \if and \elif (ParseExpr, Eval),
// with pgbench 15–17's semantics, so that scripts written for pgbench run
// unchanged. It knows no database: running a script is the workload's.
//
// # Scripts
//
// A script is a sequence of SQL commands and meta-commands. An SQL command
// ends at a semicolon outside quoted strings, quoted identifiers, dollar
// quotes, comments and parentheses, or where a meta-command starts; it may
// span lines, and \; joins queries into one compound command. A
// meta-command runs from its backslash to the end of its line (a
// backslash before the line break continues it):
//
//	\set name expression
//	\sleep number|:variable [us|ms|s]
//	\gset [prefix], \aset [prefix]   (end or follow an SQL command)
//	\if expression, \elif expression, \else, \endif
//	\startpipeline, \syncpipeline, \endpipeline
//	\shell command [argument ...], \setshell name command [argument ...]
//
// \shell and \setshell are refused unless ParseOptions.AllowShell.
// Queries refer to variables as :name (Query.Refs); a workload binds them
// as parameters (Query.Parameterize) or writes their text into the query
// (Query.Interpolate), as pgbench's extended and simple protocols do.
// psql's :'name' and :"name" are not pgbench's and are no references. A
// :name in a quoted string is replaced by the simple protocol only, as
// pgbench does; unlike pgbench, a :name in a comment, a quoted identifier
// or a dollar-quoted string is never a reference. Errors are *SyntaxError values naming the file, line and
// column, with the line and a caret under the column. Conditional blocks
// are checked when parsed, and so are pipelines (balanced, not nested).
//
// # Expressions
//
// Values are NULL, booleans, 64-bit integers and doubles (Value). The
// operators, their precedence, the coercions between types, NULL's
// propagation and the errors (integer overflow, division by zero, bad
// coercions) are pgbench's, and so are the functions: abs, debug,
// double, exp, greatest, hash, hash_fnv1a, hash_murmur2, int, least, ln,
// mod, permute, pi, pow, power, random, random_exponential,
// random_gaussian, random_zipfian and sqrt, with pgbench's argument
// counts and parameter limits. TestEvalMatchesPgbench holds pgbench
// 15.18's own answers for each of them.
//
// The random functions draw from a client's Rand (xoroshiro128**, as
// pgbench 15 and later): random uniformly; random_exponential,
// random_gaussian and random_zipfian by pgbench's documented definitions
// (inverse distribution, truncated Box-Muller normal, Devroye's rejection
// method). hash, hash_fnv1a, hash_murmur2 and permute give pgbench's
// values for the same arguments.
package lang
