// Package byengine keeps a workload's parts for each engine (its stored
// procedures, its dialect of a query) under the engine's Kind, so that
// the workload picks the part of the engine it is given by asking
// Dialect.Capabilities().Kind, never by comparing the engine's name.
//
// Each engine's part lives in its own file, which registers it from an
// init function; the code that uses the parts looks one up with For.
package byengine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dbarena/dbarena/engine"
)

// Registry holds parts of type T, at most one per engine.Kind. Fill it
// from init functions (Register) and read it afterwards (For): reading is
// safe for concurrent use, registering is not. The zero value, with What
// set, is ready to use.
type Registry[T any] struct {
	// What names the parts in errors: "tpcc stored procedures".
	What string
	// Err, when set, is the error that For's *MissingError wraps, so that
	// callers can tell a missing part with errors.Is (a workload's
	// ErrUnsupported).
	Err   error
	parts map[engine.Kind]T
}

// Register adds kind's part. It panics when kind is empty or already has
// one: both are programming errors.
func (r *Registry[T]) Register(kind engine.Kind, part T) {
	if kind == "" {
		panic("byengine: " + r.What + " registered for no engine")
	}
	if _, dup := r.parts[kind]; dup {
		panic(fmt.Sprintf("byengine: %s registered twice for %s", r.What, kind))
	}
	if r.parts == nil {
		r.parts = map[engine.Kind]T{}
	}
	r.parts[kind] = part
}

// For returns kind's part, or a *MissingError naming kind and r.What
// when it has none.
func (r *Registry[T]) For(kind engine.Kind) (T, error) {
	p, ok := r.parts[kind]
	if !ok {
		return p, &MissingError{Kind: kind, What: r.What, Err: r.Err}
	}
	return p, nil
}

// Kinds lists the engines that have a part, sorted.
func (r *Registry[T]) Kinds() []engine.Kind {
	return slices.Sorted(maps.Keys(r.parts))
}

// MissingError is For's error: the engine Kind has no part of What.
type MissingError struct {
	Kind engine.Kind
	What string
	// Err is the registry's Err (nil when it has none).
	Err error
}

// Error says which engine lacks what: "sqlite has no tpcc stored procedures".
func (e *MissingError) Error() string {
	if e.Kind == "" {
		return "an engine of no kind has no " + e.What
	}
	return string(e.Kind) + " has no " + e.What
}

// Unwrap returns the registry's Err.
func (e *MissingError) Unwrap() error { return e.Err }
