//go:build !unix

package mongo

import "time"

// cpuTime is unknown here: the docs/cpu-s metric is left out.
func cpuTime() time.Duration { return 0 }
