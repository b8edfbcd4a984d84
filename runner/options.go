package runner

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// Option is one run option: a field of Config that `dbarena run` sets by
// a flag and a plan by a field of its own or of a workload entry. Options
// is the one list both read, so that every run option is settable in
// both, parsed and validated alike.
type Option struct {
	// Flag is the option's flag name (without --); Field its name in a
	// plan file.
	Flag, Field string
	// Usage is the flag's help text.
	Usage string
	// Value binds the option to c: setting it parses the text a flag or a
	// plan field gives and writes the field of c; String reads it.
	Value func(c *Config) pflag.Value
}

// Options lists the run options in the order help and docs give them.
// The thread count is not among them: `dbarena run --threads` and a
// plan's threads take lists, one run per value (see Config.Threads).
func Options() []Option {
	return []Option{
		{Flag: "time", Field: "duration", Usage: "measured duration of each run (60s, 5m or plain seconds)",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.Duration) }},
		{Flag: "warmup", Field: "warmup", Usage: "warm-up before each run, discarded",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.Warmup) }},
		{Flag: "report-interval", Field: "report_interval", Usage: "length of one reporting interval",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.ReportInterval) }},
		{Flag: "max-errors", Field: "max_errors", Usage: "stop a run after more than this many failed transactions (retried serialization failures and deadlocks do not count)",
			Value: func(c *Config) pflag.Value { return (*intValue)(&c.MaxErrors) }},
		{Flag: "tolerate-errors", Field: "tolerate_errors", Usage: "never stop a run for failed transactions; count them",
			Value: func(c *Config) pflag.Value { return (*boolValue)(&c.TolerateErrors) }},
		{Flag: "stop-grace", Field: "stop_grace", Usage: "how long transactions in flight at the end of a run may take to finish before they are cancelled",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.StopGrace) }},
	}
}

// LookupOption finds a run option by its plan field name.
func LookupOption(field string) (Option, bool) {
	for _, o := range Options() {
		if o.Field == field {
			return o, true
		}
	}
	return Option{}, false
}

// DefaultConfig is the configuration before any option is set: one
// thread, 10 s measured, no warm-up, 1 s intervals, seed 1, the first
// failed transaction stops the run, 10 s of stop grace.
func DefaultConfig() Config {
	return Config{Threads: 1, Duration: 10 * time.Second, ReportInterval: time.Second, Seed: 1, StopGrace: 10 * time.Second}
}

// OptionError is a bad value of one run option. Error names the flag
// ("--max-errors -1: must not be negative"); a plan names the field.
type OptionError struct {
	Flag  string
	Value string
	Msg   string
}

func (e *OptionError) Error() string { return fmt.Sprintf("--%s %s: %s", e.Flag, e.Value, e.Msg) }

// durationValue is a duration that also takes plain seconds ("60"), as
// sysbench's --time does.
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Type() string   { return "duration" }
func (d *durationValue) Set(s string) error {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		*d = durationValue(n * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q: want a duration such as 60s, 5m or plain seconds", s)
	}
	*d = durationValue(v)
	return nil
}

type intValue int64

func (v *intValue) String() string { return strconv.FormatInt(int64(*v), 10) }
func (v *intValue) Type() string   { return "int" }
func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q: want an integer", s)
	}
	*v = intValue(n)
	return nil
}

type boolValue bool

func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) Type() string     { return "bool" }
func (v *boolValue) IsBoolFlag() bool { return true }
func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q: want true or false", s)
	}
	*v = boolValue(b)
	return nil
}

// BindFlags registers every run option of Options on fs as a flag that
// writes c; c's values at the call are the flags' defaults.
func BindFlags(fs *pflag.FlagSet, c *Config) {
	for _, o := range Options() {
		v := o.Value(c)
		f := fs.VarPF(v, o.Flag, "", o.Usage)
		if v.Type() == "bool" {
			f.NoOptDefVal = "true"
		}
	}
}
