package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// Main runs the command line args and returns the exit code. Errors are
// printed to st.Stderr as one line each, with any password scrubbed.
func Main(ctx context.Context, st *State, args []string) int {
	root := NewRoot(st)
	root.SetArgs(args)
	root.SetOut(st.Stdout)
	root.SetErr(st.Stderr)
	entered := false
	var cpuProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpu-profile", "", "write a Go CPU profile of dbarena itself to this file (go tool pprof reads it)")
	var stopProfile func() error
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		entered = true
		if cpuProfile == "" {
			return nil
		}
		var err error
		stopProfile, err = startCPUProfile(cpuProfile)
		return err
	}
	err := root.ExecuteContext(ctx)
	if stopProfile != nil {
		if perr := stopProfile(); perr != nil && err == nil {
			err = perr
		}
	}
	if err == nil {
		return ExitOK
	}
	if !entered {
		// cobra failed before any command ran: unknown command or flag.
		var ue *UsageError
		if !errors.As(err, &ue) {
			err = &UsageError{err}
		}
	}
	err = interruption(ctx, err)
	fmt.Fprintf(st.Stderr, "dbarena: error: %s\n", scrub(err.Error(), st))
	return ExitCode(err)
}

// scrub removes the values of the engines' password environment variables
// from a message (engine.ScrubEnv): a last line of defence behind the
// engines' own redaction.
func scrub(msg string, st *State) string { return engine.ScrubEnv(msg, st.Getenv) }

// versionLine is what --version and version print: the version, the
// commit it was built from and the Go toolchain that built it.
func versionLine(st *State) string {
	return fmt.Sprintf("dbarena %s (commit %s, %s %s/%s)", st.Version, st.Commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// longHelp is the top-level help's description, naming every registered
// workload and engine.
func longHelp() string {
	var ws []string
	for _, m := range workload.All() {
		ws = append(ws, m.Name)
	}
	return "dbarena runs database benchmarks against PostgreSQL (and PgBouncer), MySQL/MariaDB, MongoDB and SQLite, runs whole experiments from plan files on servers it manages itself, as one process or as shards on many hosts, and writes versioned result files.\n\n" +
		"Workloads (dbarena list shows their options): " + strings.Join(ws, ", ") + "."
}

// NewRoot builds the command tree. Every registered workload becomes a
// subcommand of run, prepare, check and cleanup, with its own options as
// flags.
func NewRoot(st *State) *cobra.Command {
	root := &cobra.Command{
		Use:           "dbarena",
		Short:         "Fair, reproducible database benchmarks",
		Long:          longHelp(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       st.Version,
	}
	root.SetVersionTemplate(versionLine(st) + "\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{err} })
	root.AddCommand(
		workloadCommand(st, "run", "Run a workload and measure it", newRunCmd),
		workloadCommand(st, "prepare", "Create a workload's tables and load its initial data", newPrepareCmd),
		workloadCommand(st, "check", "Check the consistency of a workload's data", newCheckCmd),
		workloadCommand(st, "cleanup", "Drop the tables dbarena created for a workload", newCleanupCmd),
		newListCmd(st),
		newCompareCmd(st),
		newExportCmd(st),
		newDumpCmd(st),
		newReportCmd(st),
		newMergeCmd(st),
		newRecoverCmd(st),
		newServerCmd(st),
		newPlanCmd(st),
		newK8sCmd(st),
		&cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Args:  cobra.NoArgs,
			Run: func(cmd *cobra.Command, _ []string) {
				fmt.Fprintln(st.Stdout, versionLine(st))
			},
		},
	)
	return root
}

// workloadCommand is a parent command ("run") with one child per workload.
func workloadCommand(st *State, name, short string, child func(*State, workload.Meta) *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name + " WORKLOAD [flags]",
		Short: short,
		// Without a known workload as first argument, say which exist:
		// the parent parses no flags, so that a misspelt workload is
		// reported as such and not as the first of its flags, which only
		// the workload's own command knows.
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return c.Help()
		}
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return &UsageError{fmt.Errorf("%s needs a workload first: one of %s", name, workloadNames())}
		}
		msg := fmt.Sprintf("unknown workload %q: one of %s (dbarena list shows their options)", args[0], workloadNames())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg = fmt.Sprintf("unknown workload %q: did you mean %s? (known: %s)", args[0], strings.Join(s, " or "), workloadNames())
		}
		return &UsageError{errors.New(msg)}
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{err} })
	for _, m := range workload.All() {
		c := child(st, m)
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
			return &UsageError{fmt.Errorf("%s %s: %w", name, m.Name, err)}
		})
		cmd.AddCommand(c)
	}
	return cmd
}

func workloadNames() string {
	var names []string
	for _, m := range workload.All() {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

// validateWorkload runs the workload's own option checks.
func validateWorkload(w workload.Workload) []error {
	if v := w.Define().Validate; v != nil {
		return v()
	}
	return nil
}

func usage(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return &UsageError{errors.Join(errs...)}
}

func newListCmd(st *State) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List workloads, their options and defaults",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			for _, m := range workload.All() {
				w := m.New()
				fmt.Fprintf(st.Stdout, "%s (version %s)\n    %s\n", m.Name, m.Version, m.Description)
				// A hidden option is one the workload accepts (a
				// sysbench command line's) but does not use.
				var unused []string
				w.Define().Options.VisitAll(func(f *pflag.Flag) {
					if f.Hidden {
						unused = append(unused, "--"+f.Name)
						return
					}
					fmt.Fprintf(st.Stdout, "    --%-22s %s (default %s)\n", f.Name, f.Usage, defaultOf(f))
				})
				if len(unused) > 0 {
					fmt.Fprintf(st.Stdout, "    accepted for sysbench compatibility, unused by this test: %s\n", strings.Join(unused, ", "))
				}
				fmt.Fprintln(st.Stdout)
			}
			fmt.Fprintf(st.Stdout, "engines (target URL schemes): %s\n", strings.Join(engine.Schemes(), ", "))
			return nil
		},
	}
}

func defaultOf(f *pflag.Flag) string {
	if f.DefValue == "" {
		return `""`
	}
	return f.DefValue
}

// startCPUProfile profiles this process into path until the returned
// function is called.
func startCPUProfile(path string) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("--cpu-profile %s: %w", path, err)}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
