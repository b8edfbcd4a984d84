package procs_test

import "testing"

func orderThenResult(t *testing.T, v *env)      {}
func intendedRollback(t *testing.T, v *env)     {}
func noPermission(t *testing.T, v *env)         {}
func limitOrderMarketFeed(t *testing.T, v *env) {}
func tradeUpdate(t *testing.T, v *env)          {}
func dataMaintenance(t *testing.T, v *env)      {}
func tradeCleanup(t *testing.T, v *env)         {}
func installUninstall(t *testing.T, v *env)     {}
