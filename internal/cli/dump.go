package cli

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/outfile"
	"github.com/dbarena/dbarena/workload"
)

// newDumpCmd is dump, with one child per workload that is a
// Spec.Dump: it writes the initial data prepare would load to a
// file, for an engine's own bulk-load tool to load the same rows.
func newDumpCmd(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dump WORKLOAD --out FILE [flags]",
		Short: "Write the initial data a workload's prepare loads to a file, for the engines' own load tools",
		Args:  cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			names := dumpNames()
			if len(args) == 0 {
				return &UsageError{fmt.Errorf("dump needs a workload: one of %s", names)}
			}
			return &UsageError{fmt.Errorf("workload %q cannot dump its data: dump knows %s", args[0], names)}
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{err} })
	for _, m := range workload.All() {
		w := m.New()
		d := w.Define().Dump
		if d == nil {
			continue
		}
		var out string
		c := &cobra.Command{
			Use:   m.Name,
			Short: m.Description,
			Long:  "Writes " + d.Format + ".\nIt takes the options that define the data; the file is written whole, or not at all.",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				errs := validateWorkload(w)
				if out == "" {
					errs = append(errs, fmt.Errorf("--out: name the file to write (- for standard output)"))
				} else if out != "-" {
					if err := checkOutputFile("--out", out); err != nil {
						errs = append(errs, err)
					}
				}
				if err := usage(errs); err != nil {
					return err
				}
				return dump(cmd, st, d, out)
			},
		}
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
			return &UsageError{fmt.Errorf("dump %s: %w", m.Name, err)}
		})
		c.Flags().StringVarP(&out, "out", "o", "", "the file to write (- for standard output)")
		addDataFlags(c.Flags(), w)
		cmd.AddCommand(c)
	}
	return cmd
}

// dump writes d's data to out: standard output, or out as package
// outfile writes every output (a file appears under its name only once it
// is complete).
func dump(cmd *cobra.Command, st *State, d *workload.Dump, out string) error {
	start := st.Now()
	if out == "-" {
		bw := bufio.NewWriterSize(st.Stdout, 1<<20)
		if _, err := d.Write(cmd.Context(), bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	var rows int64
	var n countingWriter
	// The file keeps the mode dump has always given it: its owner's alone.
	err := outfile.Write(cmd.Context(), "--out", out, 0o600, func(w io.Writer) error {
		n.w = w
		bw := bufio.NewWriterSize(&n, 1<<20)
		var err error
		if rows, err = d.Write(cmd.Context(), bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(st.Stdout, "dumped %d rows, %s, to %s in %s\n", rows, humanBytes(n.n), out, st.Now().Sub(start).Round(time.Millisecond))
	return nil
}

// countingWriter counts the bytes written to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// addDataFlags adds w's options that define its data (all of them when
// w does not say which do) to fs.
func addDataFlags(fs *pflag.FlagSet, w workload.Workload) {
	spec := w.Define()
	if spec.DataOptions == nil {
		fs.AddFlagSet(spec.Options)
		return
	}
	for _, name := range spec.DataOptions {
		if f := spec.Options.Lookup(name); f != nil {
			fs.AddFlag(f)
		}
	}
}

// dumpNames lists the workloads that can dump their data.
func dumpNames() string {
	var names string
	for _, m := range workload.All() {
		if m.New().Define().Dump != nil {
			if names != "" {
				names += ", "
			}
			names += m.Name
		}
	}
	return names
}
