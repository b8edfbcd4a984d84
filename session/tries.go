package session

import "github.com/dbarena/dbarena/result"

// scrubTries removes secrets from the errors of a run's tries, as from
// the run's own error.
func scrubTries(run *result.Run, scrub func(string) string) {
	if run == nil || run.Tries == nil {
		return
	}
	for i := range run.Tries.Queries {
		q := &run.Tries.Queries[i]
		for j := range q.Tries {
			if q.Tries[j].Error != "" {
				q.Tries[j].Error = scrub(q.Tries[j].Error)
			}
		}
	}
}
