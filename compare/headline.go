package compare

// Headline is the figure a workload's studies lead with, for runs of one
// workload: the first of its own metrics that is a rate where higher is
// better (NOPM for tpcc, transfers/min for payments), else tps (airline's
// bookings per second: its one transaction is a booking).
func Headline(inputs []Input) string {
	for _, in := range inputs {
		for _, r := range in.File.Runs {
			for _, m := range r.Metrics {
				if m.Higher && (m.Unit == "/min" || m.Unit == "/s") {
					return m.Name
				}
			}
		}
	}
	return "tps"
}
