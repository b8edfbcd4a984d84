// Package load puts a workload's data into a target and takes it out
// again: Prepare creates the workload's tables and loads their initial
// data in parallel (LoadThreads loaders, each on a connection of its
// own, a table's indexes built as soon as its rows are in), records
// every table it creates in MetaTable with the prepare that made it
// (preparer.go) and says where the time went (LoadTimes, loadtime.go);
// VerifyPrepared and Check tell whether the tables are the ones dbarena
// prepared, with the same data options, and run the workload's checks
// (Spec.Check); Cleanup drops only the tables dbarena created and that are
// still the ones it created.
//
// A run of the workload is package runner's; package session calls both.
// Like the runner, load never asks a workload its name: it reads its
// Spec (Tables, BatchUnit, FinishLoad, Uninstall, Check).
package load
