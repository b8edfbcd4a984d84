// Package archtest holds the test of dbarena's import rules: the model
// layer at the ground floor imports nothing above it, no engine imports
// a workload, and engines and managed servers do not import each other.
// It has no code of its own.
package archtest
