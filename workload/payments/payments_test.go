package payments

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/workload"
)

func parse(t *testing.T, args ...string) *Payments {
	t.Helper()
	w := New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestValidate(t *testing.T) {
	if errs := parse(t).Define().Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	var msgs []string
	for _, e := range parse(t, "--accounts", "1", "--organizations", "5", "--users", "3").Define().Validate() {
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"--accounts 1: must be at least 2", "--users 3: must be at least --organizations (5)"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
}

// Users and accounts are dealt round robin over the organizations; the
// issuing user Next picks always belongs to the card account's.
func TestIssuerBelongsToOrganization(t *testing.T) {
	w := parse(t, "--accounts", "50", "--users", "13", "--organizations", "4")
	b := WorkerBase{w: w, r: newTestRand()}
	for i := 0; i < 2000; i++ {
		b.Pick()
		in, org := b.in, w.orgOf(b.in.Card)
		if in.Issuer < 1 || in.Issuer > 13 || w.orgOf(in.Issuer) != org {
			t.Fatalf("card %d (organization %d): issuer %d of organization %d", in.Card, org, in.Issuer, w.orgOf(in.Issuer))
		}
		if in.To == in.Card || in.To < 1 || in.To > 50 || in.Acquirer < 1 || in.Acquirer > 13 || in.Amount < 0.01 || in.Amount > 100 {
			t.Fatalf("transfer %+v", in)
		}
	}
	if a, b := w.tokenHash(1), w.tokenHash(2); len(a) != 64 || a == b {
		t.Errorf("token hashes %q %q", a, b)
	}
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// Spec.Metrics names exactly the figures the Run reports for a measured
// phase in which every op ran, in order.
func TestMetricsNamed(t *testing.T) {
	w := parse(t)
	spec := w.Define()
	r, err := w.Open(context.Background(), workload.RunEnv{})
	if err != nil {
		t.Fatal(err)
	}
	s := workload.Span{Length: time.Minute, Final: true}
	for _, op := range spec.Ops {
		h := histogram.New()
		h.RecordValue(1000)
		s.Ops = append(s.Ops, workload.OpSpan{Name: op.Name, Count: 1, Hist: h})
	}
	var got []string
	for _, m := range r.Metrics(s) {
		got = append(got, m.Name)
	}
	if !slices.Equal(got, spec.Metrics) {
		t.Errorf("Run.Metrics reports %q, Spec.Metrics names %q", got, spec.Metrics)
	}
}
