// Package soak holds dbarena's soak benchmark: hundreds of workers against
// a managed PostgreSQL server for an hour, the client's memory and
// goroutines sampled every minute. It is built only with the soak tag
// (`make soak`), never by `make test`; docs/BENCHMARKS.md has its figures.
package soak
