package cli

import (
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/threshold"
	"github.com/dbarena/dbarena/workload"
)

// checkThresholds parses cfg's --threshold expressions against w (its
// ops and own metrics, with its options as given) before any work,
// every bad one reported.
func checkThresholds(w workload.Workload, cfg runner.Config) []error {
	if len(cfg.Thresholds) == 0 {
		return nil
	}
	_, errs := threshold.ParseAll(cfg.Thresholds, threshold.ContextOf(w))
	return errs
}
