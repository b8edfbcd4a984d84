// Package plan reads experiment files and runs them: a matrix of targets
// (with knob matrices over the servers dbarena starts itself), workloads
// and thread counts, repeated in interleaved rounds, with every result
// file, the state of the experiment and its comparison in one directory.
//
// # The plan file
//
// A plan is one YAML document, decoded strictly: an unknown field, a value
// of the wrong type or out of range, an unknown workload or option, a bad
// URL — every problem is reported at once, each with the file, line,
// column and field (*Error).
//
//	name: knobs                  # default: the file's name
//	description: one line for the summary
//	vars:                        # variables, each with its default: ${clients} stands for the value
//	  clients: [1, 2, 4]         # plan run/show --var 'clients=[1, 2, 4, 8, 16]' overrides it (as YAML)
//	seed: 42                     # the order of the runs and the runs' seed (default 1)
//	repetitions: 3               # rounds (default 1), or until precise:
//	# repetitions: {until_ci: 2%, min: 5, max: 30, budget: 1h}   # rounds until every cell's 95% interval is within ±2%
//	duration: 60s                # measured phase of each run (or seconds; optional with events)
//	events: 100000               # end each run after this many transactions, warm-up included
//	warmup: 10s                  # discarded phase before it (default 0)
//	report_interval: 1s          # default 1s
//	max_errors: 10               # failed transactions a run tolerates (default 0)
//	tolerate_errors: false       # true: never stop a run for failed transactions
//	isolation: serializable      # every run's transaction isolation (default: the workload's)
//	max_retries: 10              # replays of a retried transaction (default: the workload's)
//	retry_backoff: 2ms           # the first replay's back-off bound (default: the workload's)
//	retry_backoff_max: 500ms     # the largest (default: the workload's)
//	stop_grace: 10s              # in-flight transactions' time to finish at the end
//	threads: [8, 32]             # or one number
//	baseline: pg-sb=1GB          # the compare tables' baseline (default: the first target)
//	change: vs-baseline          # or vs-better, vs-previous (compare --change)
//	average: mean-of-changes     # the average row: change-of-means (default) or mean-of-changes (compare --average)
//	columns: [server_cpu_pct, host_iowait_pct, disk_iops]   # beside each target's metric (compare --columns)
//	relative: true               # metric tables as multiples of the baseline at its lowest thread count (compare --relative)
//	knobs:                       # a matrix over every managed target's settings
//	  shared_buffers: [128MB, 1GB]
//	knob_labels: {shared_buffers: sb}   # shorter names in the labels
//	targets:
//	  - label: pg                # letters, digits and ._+=,:-
//	    url: "managed:postgres?max_wal_size=1GB"
//	  - label: remote
//	    url: postgres://bench@10.0.0.5/bench
//	    password_file: ./pw      # relative to the plan file
//	    provisioned_iops: 3000   # the data disk's provisioned IOPS: adds disk_iops_pct
//	  - label: maria
//	    url: "managed:mariadb"
//	    knobs: {innodb_buffer_pool_size: [1G, 3G]}   # its own matrix instead of the plan's
//	workloads:
//	  - name: tpcc               # a registered workload
//	    options: {warehouses: 10, mode: procedure}   # its flags, without --
//	    threads: [16]            # threads and every run option above override the plan's
//	    metric: NOPM             # what the compare tables show (default tps)
//	    columns: [server_cpu_pct, pg_checkpoints]   # instead of the plan's
//	    targets: [pg]            # only on these targets (labels as written above; default every target)
//	    group: modes             # one table with the group's other entries: a column per target/entry
//	  - name: oltp_read_write
//	    label: rw-small          # needed when a workload appears twice
//	    options: {tables: 4, table_size: 10000}
//
// The run options (duration through stop_grace) are runner.Options, the
// same list `dbarena run` takes as flags (--time, --events, --warmup,
// --report-interval, --max-errors, --tolerate-errors, --isolation,
// --max-retries, --retry-backoff, --retry-backoff-max, --stop-grace,
// --client-threads, --reconnect-timeout, --threshold, --abort-on-fail),
// parsed and
// validated alike; Cell.Config is a cell's runner.Config. Thresholds
// (`thresholds: ["p99<50ms", "op:new_order p90<5ms"]`) are checked
// against each entry's workload when the plan is read; an entry's add to
// the plan's.
//
// Knobs are server settings of managed targets (URLs starting with
// "managed:"): each combination becomes one target, its settings appended
// to the URL's query and to the label ("pg-sb=128MB"). Knobs on a plain URL
// are refused. Plain URLs are parsed with engine.ParseTarget; the caller
// checks managed ones through Options.ValidateTarget.
//
// # Cells and order
//
// The cells are the product targets × workloads × thread counts; each runs
// once per repetition. Plan.Order runs the repetitions as rounds, each
// round visiting every cell once in its own seeded shuffle, so drift over
// the hours of an experiment falls on every cell alike. Cells that share a
// PrepareKey (target, workload, data options) share one prepared data set: the
// Executor is told before a key's first run (Prepare) and after its last
// (Release). SessionExecutor runs the cells through package session: it
// resolves and opens each target once (session.Resolve), sets each cell's
// workload options on the workload's flags (Workload.New) and measures the
// cell's runner.Config (Cell.Config); dbarena plan run adds its log lines
// and live metrics through its hooks.
//
// # The results directory
//
// Run writes into one directory (default "<name>-results" next to the
// plan file):
//
//	plan.yaml                      the plan file, passwords replaced by xxxxx
//	plan.json                      the expanded cells, the order and every run's
//	                               status (pending, done, failed with its error),
//	                               rewritten atomically after every run
//	<target>__<workload>__t<threads>__r<rep>.json   one result file per run
//	compare.md                     per workload: the compare tables (metric with its
//	                               columns, p95)
//	report.html                    the HTML report of every complete run
//	summary.md                     per workload the metric's table; failed runs
//
// Running a plan again on its directory resumes it: runs whose result file
// is complete are skipped, failed runs run again (unless
// RunOptions.NoRetryFailed), and a directory made by a plan with other
// cells is refused (ErrDifferentPlan). Repetitions may be raised to add
// rounds. Show prints the cells, the order and what is done without
// running anything.
package plan
