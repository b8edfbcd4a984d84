// Package archtest holds the test of dbarena's import rules: the model
// layer at the ground floor imports nothing above it, no engine imports
// a workload, engines and managed servers do not import each other, and
// only package k8s imports the Kubernetes API's modules.
// It has no code of its own.
package archtest
