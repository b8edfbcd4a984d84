// Package faults holds dbarena's fault suite, tests only: a server killed
// and restarted in the middle of a run on PostgreSQL, MariaDB and MongoDB,
// each on a server of the test's own (never the shared test servers).
package faults
