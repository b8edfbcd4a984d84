// Package timing holds the run loop's timing models: when each worker
// starts its next transaction and from which instant that transaction's
// latency runs. Package runner's loop asks a Scheduler, the one
// interface of the models it drives, for a WorkerSchedule per worker and
// each of its starts (a Slot):
//
//   - Closed, the closed model: every worker starts its next
//     transaction as soon as the previous one ends (schedule.go);
//   - Open, the arrival-rate (open) model, an Arrivals: transactions
//     arrive at a rate of their own, Poisson or evenly spaced, constant
//     or ramped through stages, and are timed from their intended starts
//     (RateConfig, schedule_rate.go).
//
// The analytic timing model (Analytic, RunTries, tries.go) times each of
// a workload's queries a number of times in a row on one connection. It
// is no Scheduler: it has no workers, intervals or warm-up to schedule,
// and runner.Run hands it the whole run (RunTries says why).
//
// The models' options are validated here (RateConfig.Validate,
// Analytic.Validate) and bound to flags and plan fields with the other
// run options by runner.Options.
package timing
