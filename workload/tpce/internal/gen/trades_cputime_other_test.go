//go:build !unix

package gen

import "time"

// tradeCPUTime is not measured here: the per CPU-second figures are
// infinite.
func tradeCPUTime() time.Duration { return 0 }
