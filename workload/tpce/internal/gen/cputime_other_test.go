//go:build !unix

package gen

import "time"

// cpuTime is unknown here: the rows/cpu-s metric reads as 0.
func cpuTime() time.Duration { return 0 }
