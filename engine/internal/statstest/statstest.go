// Package statstest fakes what the engines' server-statistics sources
// read, so that they are tested without a server: a connection that
// answers statements by fragment, and a sink that keeps what it gets.
package statstest

import (
	"context"
	"errors"
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// Conn answers statements by the first registered fragment they contain.
type Conn struct {
	// engine.Conn is nil: the sources call only QueryRows.
	engine.Conn
	Answers []Answer
	// Queries are the statements run, in order.
	Queries []string
}

// Answer is the rows (or error) of the statements containing Fragment.
type Answer struct {
	Fragment string
	Rows     [][]any
	Err      error
}

// On adds an answer and returns c.
func (c *Conn) On(fragment string, err error, rows ...[]any) *Conn {
	c.Answers = append(c.Answers, Answer{fragment, rows, err})
	return c
}

// QueryRows calls fn with the rows of the first answer whose fragment sql
// contains; a statement no answer matches fails.
func (c *Conn) QueryRows(_ context.Context, sql string, _ []any, fn func(row []any) error) error {
	c.Queries = append(c.Queries, sql)
	for _, a := range c.Answers {
		if strings.Contains(sql, a.Fragment) {
			if a.Err != nil {
				return a.Err
			}
			for _, r := range a.Rows {
				if err := fn(r); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return errors.New("statstest.Conn: unexpected statement: " + sql)
}

// Sink keeps the counters and gauges a source sets.
type Sink struct {
	Counters map[string]uint64
	Gauges   map[string]float64
}

// SetCounter records a counter.
func (s *Sink) SetCounter(name string, v uint64) {
	if s.Counters == nil {
		s.Counters = map[string]uint64{}
	}
	s.Counters[name] = v
}

// SetGauge records a gauge.
func (s *Sink) SetGauge(name string, v float64) {
	if s.Gauges == nil {
		s.Gauges = map[string]float64{}
	}
	s.Gauges[name] = v
}
