package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/session"
)

// newServerCmd is "dbarena server": managed local servers that outlive
// the command, for targets of the form managed:NAME.
func newServerCmd(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Start, list and stop managed local servers (PostgreSQL, MariaDB, PgBouncer, MongoDB)",
		Long: "Managed servers are throw-away PostgreSQL, MariaDB, PgBouncer and MongoDB servers that dbarena starts from the machine's\n" +
			"binaries in its data directory, with the settings given (--set name=value, read back from the running server).\n" +
			"Each listens on 127.0.0.1 only and has user bench, database bench and a random password kept in a file.\n" +
			"A target managed:NAME uses a started one; managed:postgres?shared_buffers=1GB starts one for one command.",
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &UsageError{errors.New("server needs a subcommand: start, stop, list or url")}
			}
			return &UsageError{fmt.Errorf("unknown server subcommand %q: start, stop, list or url", args[0])}
		},
	}
	for _, c := range []*cobra.Command{newServerStartCmd(st), newServerStopCmd(st), newServerListCmd(st), newServerURLCmd(st)} {
		c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			return &UsageError{fmt.Errorf("server %s: %w", c.Name(), err)}
		})
		cmd.AddCommand(c)
	}
	return cmd
}

func newServerStartCmd(st *State) *cobra.Command {
	var spec server.Spec
	var sets []string
	var mongod string
	timeout := seconds(time.Minute)
	cmd := &cobra.Command{
		Use:   "start postgres|mariadb|pgbouncer|mongo [--name NAME] [--version N] [--set name=value]...",
		Short: "Start a managed server and leave it running",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var errs []error
			kind, err := server.ParseKind(args[0])
			if err != nil {
				errs = append(errs, err)
			}
			spec.Kind, spec.Timeout, spec.Getenv = kind, time.Duration(timeout), st.Getenv
			if mongod != "" {
				spec.Programs = map[string]string{"mongod": mongod}
			}
			for _, s := range sets {
				k, err := server.ParseKnob(s)
				if err != nil {
					errs = append(errs, fmt.Errorf("--set %s: want name=value", s))
					continue
				}
				spec.Knobs = append(spec.Knobs, k)
			}
			if spec.Home, err = st.DataDir(); err != nil {
				errs = append(errs, err)
			} else {
				reapOrphans(st, spec.Home)
			}
			if kind != "" && spec.Home != "" {
				errs = append(errs, spec.Validate()...)
			}
			if err := usage(errs); err != nil {
				return err
			}
			srv, err := server.Start(cmd.Context(), spec)
			if err != nil {
				return err
			}
			describeServer(st, srv)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&spec.Name, "name", "", "name of the server, for --target managed:NAME and server stop NAME (default: KIND-<random>)")
	fs.StringArrayVar(&sets, "set", nil, "a server setting, name=value (repeatable); for pgbouncer, pgbouncer.NAME=value sets PgBouncer's own, the others its PostgreSQL's")
	fs.IntVar(&spec.Port, "port", 0, "TCP port on 127.0.0.1 (default: a free one)")
	fs.StringVar(&mongod, "mongod", "", "mongo: the mongod `program` (default: $DBARENA_MONGOD, PATH, then the cache scripts/testservers install fills)")
	fs.StringVar(&spec.BinDir, "bin-dir", "", "directory of the server's programs (default: the newest /usr/lib/postgresql/*/bin, else PATH and /usr/sbin)")
	fs.StringVar(&spec.Version, "version", "", "postgres, pgbouncer's own postgres: the PostgreSQL `version`, major (18) or exact (18.6), among Debian's /usr/lib/postgresql/*/bin, the cache scripts/testservers install fills, PATH or --bin-dir (default: the newest Debian one)")
	fs.StringVar(&spec.Backend, "backend", "", "pgbouncer: the started PostgreSQL server to go in front of (default: start one of its own with the --set values)")
	fs.Var(&timeout, "timeout", "give up when the server does not accept connections after this long")
	return cmd
}

// describeServer prints what a user needs of a started server; never
// its password.
func describeServer(st *State, s *server.Server) {
	fmt.Fprintf(st.Stdout, "started %s %s: %s, pid %d\n", s.Kind(), s.Name(), s.Version(), s.PID())
	fmt.Fprintf(st.Stdout, "  url:       %s\n", s.Target().Redacted())
	fmt.Fprintf(st.Stdout, "  password:  %s (mode 0600)\n", s.PasswordFile())
	fmt.Fprintf(st.Stdout, "  data dir:  %s\n", s.DataDir())
	fmt.Fprintf(st.Stdout, "  log:       %s\n", s.LogFile())
	if b := s.Backend(); b != nil {
		fmt.Fprintf(st.Stdout, "  backend:   %s on 127.0.0.1:%d, pid %d, data dir %s\n", b.Version(), b.Port(), b.PID(), b.DataDir())
	}
	if knobs := s.Knobs(); len(knobs) > 0 {
		got := s.Settings()
		parts := make([]string, len(knobs))
		for i, k := range knobs {
			parts[i] = k.Name + " = " + got[k.Name]
		}
		fmt.Fprintf(st.Stdout, "  settings:  %s (as the server reports them)\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(st.Stdout, "  use it:    --target managed:%s    stop it: dbarena server stop %s\n", s.Name(), s.Name())
}

func newServerStopCmd(st *State) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "stop NAME...|--all",
		Short: "Stop managed servers and remove their files",
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return &UsageError{errors.New("server stop: name the servers to stop, or give --all")}
			}
			home, err := st.DataDir()
			if err != nil {
				return &UsageError{err}
			}
			reapOrphans(st, home, args...) // those named are stopped below
			started, err := server.List(home)
			if err != nil && !all {
				return err
			}
			listErr := err
			var stop []*server.Server
			if all {
				stop = started
			} else {
				var errs []error
				for _, name := range args {
					s, err := server.Lookup(home, name)
					if err != nil {
						errs = append(errs, err)
						continue
					}
					stop = append(stop, s)
				}
				if err := usage(errs); err != nil {
					return err
				}
				// A PostgreSQL goes only with the PgBouncers in front of it.
				stopping := map[string]bool{}
				for _, s := range stop {
					stopping[s.Name()] = true
				}
				for _, s := range started {
					if b := s.BackendName(); b != "" && !s.OwnsBackend() && stopping[b] && !stopping[s.Name()] {
						errs = append(errs, fmt.Errorf("pgbouncer %s is in front of %s: stop it first, or both together (dbarena server stop %s %s)", s.Name(), b, s.Name(), b))
					}
				}
				if err := usage(errs); err != nil {
					return err
				}
			}
			// PgBouncers first: they hold connections to their backends.
			var errs []error
			for _, pass := range []bool{true, false} {
				for _, s := range stop {
					if s.InFront() != pass {
						continue
					}
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					err := s.Stop(ctx)
					cancel()
					if err != nil {
						errs = append(errs, err)
						continue
					}
					fmt.Fprintf(st.Stdout, "stopped %s %s\n", s.Kind(), s.Name())
				}
			}
			if all && len(stop) == 0 && listErr == nil {
				fmt.Fprintf(st.Stdout, "no managed servers in %s\n", home)
			}
			return errors.Join(append(errs, listErr)...)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "stop every managed server of the data directory (throw-away ones left by an interrupted dbarena too)")
	return cmd
}

func newServerListCmd(st *State) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the managed servers (URLs without passwords)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			home, err := st.DataDir()
			if err != nil {
				return &UsageError{err}
			}
			reapOrphans(st, home)
			servers, err := server.List(home)
			if len(servers) == 0 && err == nil {
				fmt.Fprintf(st.Stdout, "no managed servers in %s\n", home)
				return nil
			}
			tw := tabwriter.NewWriter(st.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tVERSION\tSTATE\tPID\tURL\tSETTINGS")
			for _, s := range servers {
				kind := string(s.Kind())
				switch {
				case s.OwnsBackend():
					kind += " (own postgres)"
				case s.BackendName() != "":
					kind += " (in front of " + s.BackendName() + ")"
				}
				state := "running"
				if !s.Alive() {
					state = "dead"
				}
				var knobs []string
				for _, k := range s.Knobs() {
					knobs = append(knobs, k.String())
				}
				version := s.Version()
				if version == "" {
					version = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.Name(), kind, version, state, s.PID(), s.Target().Redacted(), strings.Join(knobs, " "))
			}
			if ferr := tw.Flush(); err == nil {
				err = ferr
			}
			return err
		},
	}
}

func newServerURLCmd(st *State) *cobra.Command {
	return &cobra.Command{
		Use:   "url NAME",
		Short: "Print a managed server's URL (without its password; stderr says where the password file is)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			home, err := st.DataDir()
			if err != nil {
				return &UsageError{err}
			}
			reapOrphans(st, home)
			s, err := server.Lookup(home, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(st.Stdout, s.Target().Redacted())
			fmt.Fprintf(st.Stderr, "password in %s: dbarena takes it with --password-file %s, or use --target managed:%s\n", s.PasswordFile(), s.PasswordFile(), s.Name())
			return nil
		},
	}
}

// reapOrphans stops and removes the managed servers of home that a
// dbarena process started for one command and left running when it was
// killed, but those named in keep, with a line on stderr for each
// (session.ReapOrphans).
func reapOrphans(st *State, home string, keep ...string) {
	session.ReapOrphans(home, st.Stderr, keep...)
}
