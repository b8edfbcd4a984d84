package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// However a Target is printed, the password does not appear.
func TestPasswordNeverPrinted(t *testing.T) {
	const pw = "s3cr3t-Pa55"
	tg, err := ParseTarget("pg=postgres://bench:"+pw+"@127.0.0.1:5432/bench", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		tg.String(), tg.Redacted(), tg.URL.String(), fmt.Sprint(tg), fmt.Sprintf("%v %+v %#v %s", tg, tg, tg, tg.Password),
	} {
		if strings.Contains(s, pw) {
			t.Errorf("password printed in %q", s)
		}
	}
}

func TestParseTargetErrors(t *testing.T) {
	for _, in := range []string{"not a url", "://x", "postgres//u:pw@h", "%zz://u:hunter2@h"} {
		t.Run(in, func(t *testing.T) {
			_, err := ParseTarget(in, "", nil)
			if !errors.Is(err, ErrBadTarget) {
				t.Fatalf("ParseTarget(%q) = %v, want ErrBadTarget", in, err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

// Register refuses incomplete registrations and schemes taken twice.
func TestRegisterPanics(t *testing.T) {
	open := func(context.Context, Target, Options) (Engine, error) { return nil, nil }
	t.Cleanup(func() { // the other tests see the real engines only
		registry.mu.Lock()
		defer registry.mu.Unlock()
		for s, r := range registry.byScheme {
			if strings.HasPrefix(r.Name, "regtest-") {
				delete(registry.byScheme, s)
				delete(registry.byName, r.Name)
			}
		}
	})
	Register(Registration{Name: "regtest-a", Aliases: []string{"regtest-alias"}, Family: FamilySQL, Dialect: regDialect("regtest-a"), Open: open})
	for name, r := range map[string]Registration{
		"no open":           {Name: "regtest-b", Family: FamilySQL, Dialect: regDialect("regtest-b")},
		"no family":         {Name: "regtest-c", Dialect: regDialect("regtest-c"), Open: open},
		"no name":           {Family: FamilySQL, Dialect: regDialect(""), Open: open},
		"no dialect":        {Name: "regtest-f", Family: FamilySQL, Open: open},
		"another's dialect": {Name: "regtest-g", Family: FamilySQL, Dialect: regDialect("regtest-a"), Open: open},
		"dialect's family":  {Name: "regtest-h", Family: FamilyMongo, Dialect: regDialect("regtest-h"), Open: open},
		"name taken":        {Name: "regtest-a", Family: FamilySQL, Dialect: regDialect("regtest-a"), Open: open},
		"alias taken":       {Name: "regtest-d", Schemes: []string{"regtest-alias"}, Family: FamilySQL, Dialect: regDialect("regtest-d"), Open: open},
		"twice in itself":   {Name: "regtest-e", Aliases: []string{"regtest-e"}, Family: FamilySQL, Dialect: regDialect("regtest-e"), Open: open},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			Register(r)
		})
	}
	if r, ok := Lookup("regtest-alias"); !ok || r.Name != "regtest-a" {
		t.Errorf("Lookup(alias) = %q %v", r.Name, ok)
	}
	if tg, err := ParseTarget("regtest-alias://h/db", "", nil); err != nil || tg.URL.Scheme != "regtest-a" {
		t.Errorf("ParseTarget(alias) = %v %v, want scheme regtest-a", tg, err)
	}
}

// A port that is not a number from 1 to 65535 is named, whatever the
// engine.
func TestParseTargetPort(t *testing.T) {
	for in, bad := range map[string]string{
		"postgres://u:hunter2@127.0.0.1:99999/db": "99999",
		"mysql://u@h:0/db":                        "0",
		"postgres://u@h:5x/db":                    "5x",
		"postgres://u@[::1]:70000/db":             "70000",
		"postgres://u@h:5432/db":                  "",
		"postgres://u@[::1]:5432/db":              "",
		"postgres://u@h/db?x=a:b":                 "",
		"mongodb://u@h1:27017,h2:27018/db":        "",
		"sqlite:///tmp/x:1.db":                    "",
	} {
		t.Run(in, func(t *testing.T) {
			_, err := ParseTarget(in, "", nil)
			if bad == "" {
				if err != nil {
					t.Errorf("ParseTarget(%q) = %v", in, err)
				}
				return
			}
			var te *TargetError
			if !errors.As(err, &te) || te.Field != "port" || !errors.Is(err, ErrBadTarget) || !strings.Contains(err.Error(), `port "`+bad+`"`) {
				t.Errorf("ParseTarget(%q) = %v, want a port error naming %q", in, err, bad)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

// regDialect is an SQL dialect named by its value, for registrations.
type regDialect string

func (d regDialect) Name() string            { return string(d) }
func (regDialect) Family() Family            { return FamilySQL }
func (regDialect) Classify(error) ErrorClass { return ClassOther }
func (d regDialect) Capabilities() Capabilities {
	return Capabilities{Kind: Kind(d), Family: FamilySQL}
}
