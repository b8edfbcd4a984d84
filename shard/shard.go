// Package shard runs one benchmark as N processes, on as many machines,
// that start together and merge exactly: a sharded run. The processes
// (shards) share nothing but the target: they meet at barriers kept in
// the target's engine.ShardTable, next to dbarena's engine.MetaTable,
// and store their result files in its engine.ResultTable when they end,
// so that `dbarena merge --from` collects them without a disk in common.
//
// A barrier is a phase of the run that every shard registers at: once
// all Count have, each computes the same start instant from the records
// (the latest registration on the server's clock plus a lead) and waits
// for it on its own clock, which it has measured against the server's
// (Clock). A barrier that does not fill in time fails naming the shards
// that are missing.
package shard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// DefaultTimeout is how long a barrier waits for every shard by default
// (--barrier-timeout).
const DefaultTimeout = 2 * time.Minute

// Spec is this process's part of a sharded run, as --shard, --run-id
// and --barrier-timeout give it.
type Spec struct {
	// Index of Count is this process's shard.
	Index, Count int
	// Run names the sharded run; every shard gives the same.
	Run string
	// Timeout is how long a barrier waits for every shard to register
	// (DefaultTimeout when 0), and how long a shard may go without a
	// sign of life while others wait for it to load.
	Timeout time.Duration
	// Poll is how often a waiting shard reads the barrier (default
	// 100 ms).
	Poll time.Duration
	// Lead is how far ahead of the last registration the start instant
	// is (default 1 s): every shard must have seen the barrier full by
	// then.
	Lead time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Scope names the part of the run the barriers are of (In): a
	// plan's prepare or cell, whose barriers and failures are its own.
	Scope string

	token string
}

// In returns the Spec of a part of the run: its barriers, and a shard's
// failure there, are the part's own (a plan's cell that fails on one
// shard fails that cell only).
func (s *Spec) In(scope string) *Spec {
	s.defaults() // the same token in every part
	c := *s
	if c.Scope != "" {
		scope = c.Scope + " / " + scope
	}
	c.Scope = scope
	return &c
}

// phase is p within the Spec's scope.
func (s *Spec) phase(p string) string {
	if s.Scope == "" {
		return p
	}
	return s.Scope + ": " + p
}

// Parse reads --shard's "i/N".
func Parse(s string) (index, count int, err error) {
	i, n, ok := strings.Cut(s, "/")
	if ok {
		index, err = strconv.Atoi(strings.TrimSpace(i))
		if err == nil {
			count, err = strconv.Atoi(strings.TrimSpace(n))
		}
	}
	switch {
	case !ok || err != nil:
		return 0, 0, fmt.Errorf("--shard %s: want INDEX/COUNT, such as 0/3", s)
	case count < 1:
		return 0, 0, fmt.Errorf("--shard %s: the count must be 1 or more", s)
	case index < 0 || index >= count:
		return 0, 0, fmt.Errorf("--shard %s: the index must be from 0 to %d", s, count-1)
	}
	return index, count, nil
}

// Validate checks a Spec as flags give it.
func (s Spec) Validate() error {
	switch {
	case s.Count < 1 || s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("--shard %d/%d: the index must be from 0 to %d", s.Index, s.Count, max(s.Count, 1)-1)
	case s.Run == "":
		return fmt.Errorf("--shard %d/%d needs --run-id, the same for every shard", s.Index, s.Count)
	case len(s.Run) > 100 || strings.ContainsAny(s.Run, " \t\n/"):
		return fmt.Errorf("--run-id %q: at most 100 characters, without spaces or slashes", s.Run)
	case s.Timeout < 0:
		return fmt.Errorf("--barrier-timeout %v: must not be negative", s.Timeout)
	}
	return nil
}

// Shard is the Spec's part in the workload contract's terms.
func (s Spec) Shard() workload.Shard { return workload.Shard{Index: s.Index, Count: s.Count} }

func (s *Spec) defaults() {
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Poll <= 0 {
		s.Poll = 100 * time.Millisecond
	}
	if s.Lead <= 0 {
		s.Lead = time.Second
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.token == "" {
		s.token = newToken()
	}
}

func newToken() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Clock is this host's clock against the server's.
type Clock struct {
	// Offset is the server's clock minus this host's: a local instant t
	// is t+Offset on the server.
	Offset time.Duration
	// Error bounds Offset's error: half the round trip of the reading
	// it comes from, plus the server clock's resolution.
	Error time.Duration
}

// ToServer turns a local instant into the server's clock.
func (c Clock) ToServer(t time.Time) time.Time { return t.Add(c.Offset) }

// ToLocal turns a server instant into this host's clock.
func (c Clock) ToLocal(t time.Time) time.Time { return t.Add(-c.Offset) }

// MeasureClock reads the server's clock a few times and keeps the
// reading with the shortest round trip, as NTP's clock filter does: the
// server read its clock somewhere within the trip, so the offset is the
// server's reading minus the trip's midpoint, within half the trip.
func MeasureClock(ctx context.Context, cat engine.Catalog, now func() time.Time) (Clock, error) {
	if now == nil {
		now = time.Now
	}
	best := Clock{Error: -1}
	whole := true // every reading in whole milliseconds
	for range 7 {
		t0 := now()
		st, err := cat.ServerTime(ctx)
		t1 := now()
		if err != nil {
			return Clock{}, err
		}
		whole = whole && st.Nanosecond()%int(time.Millisecond) == 0
		half := t1.Sub(t0) / 2
		if best.Error < 0 || half < best.Error {
			best = Clock{Offset: st.Sub(t0.Add(half)), Error: half}
		}
	}
	if whole {
		// A server clock read in whole milliseconds (MongoDB's,
		// SQLite's) adds up to a millisecond.
		best.Error += time.Millisecond
	}
	return best, nil
}

// member is what a shard records when it registers at a barrier.
type member struct {
	Token string `json:"token"`
	// OffsetUS and ErrorUS are the shard's Clock, in microseconds.
	OffsetUS int64 `json:"clock_offset_us"`
	ErrorUS  int64 `json:"clock_error_us"`
	// Config is what must be alike on every shard (Arrive's config).
	Config string `json:"config,omitempty"`
	Failed string `json:"failed,omitempty"`
}

// Start is a barrier that filled.
type Start struct {
	// At is the start instant on this host's clock, Server on the
	// server's.
	At, Server time.Time
	// Clock is this shard's clock against the server's.
	Clock Clock
}

// ErrIncomplete is wrapped by a barrier that did not fill in time.
var ErrIncomplete = errors.New("not every shard arrived")

// IncompleteError is a barrier that did not fill within the timeout.
type IncompleteError struct {
	Run, Phase string
	Count      int
	Missing    []int
	Timeout    time.Duration
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("run %s, barrier %q: %d of %d shards arrived within --barrier-timeout %v; missing: %s",
		e.Run, e.Phase, e.Count-len(e.Missing), e.Count, e.Timeout, Indexes(e.Missing))
}

func (e *IncompleteError) Unwrap() error { return ErrIncomplete }

// FailedError is a barrier another shard gave up at: it failed.
type FailedError struct {
	Run, Phase string
	Shard      int
	Reason     string
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("run %s: shard %d failed before %q: %s", e.Run, e.Shard, e.Phase, e.Reason)
}

// ErrShardFailed is wrapped by every FailedError.
var ErrShardFailed = errors.New("another shard failed")

func (e *FailedError) Unwrap() error { return ErrShardFailed }

// Indexes formats shard indexes as "0, 2".
func Indexes(ix []int) string {
	s := make([]string, len(ix))
	for i, x := range ix {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// failPhase is where a shard records that it failed, for the barriers
// the others wait at.
const failPhase = "failed"

// Arrive registers this shard at the barrier phase and waits until every
// shard has. config is what must be the same on every shard (the run's
// options, as the caller writes them): a shard that registers with
// another fails the barrier for all, naming it. The start instant comes
// back, for the caller to wait for (the runner does).
func (s *Spec) Arrive(ctx context.Context, cat engine.Catalog, phase, config string) (Start, error) {
	s.defaults()
	phase = s.phase(phase)
	clock, err := MeasureClock(ctx, cat, s.Now)
	if err != nil {
		return Start{}, err
	}
	me := member{Token: s.token, OffsetUS: clock.Offset.Microseconds(), ErrorUS: clock.Error.Microseconds(), Config: config}
	body, _ := json.Marshal(me)
	rec := engine.ShardRecord{Run: s.Run, Phase: phase, Shard: s.Index, Count: s.Count, At: clock.ToServer(s.Now()), Body: string(body)}
	added, err := cat.AddShardRecord(ctx, engine.ShardTable, rec)
	if err != nil {
		return Start{}, err
	}
	deadline := s.Now().Add(s.Timeout)
	for {
		recs, err := cat.ShardRecords(ctx, engine.ShardTable, s.Run, phase)
		if err != nil {
			return Start{}, err
		}
		if !added {
			if m, ok := memberOf(recs, s.Index); !ok || m.Token != s.token {
				return Start{}, fmt.Errorf("run %s, barrier %q: shard %d is registered already (by %s); every shard needs its own index, and a new run its own --run-id (dbarena cleanup removes an old run's records)", s.Run, phase, s.Index, tokenHost(m.Token))
			}
		}
		if err := s.failed(ctx, cat, phase); err != nil {
			return Start{}, err
		}
		seen := make([]bool, s.Count)
		var last time.Time
		for _, r := range recs {
			if r.Count != s.Count {
				return Start{}, fmt.Errorf("run %s, barrier %q: shard %d runs as one of %d shards, this one (%d) of %d", s.Run, phase, r.Shard, r.Count, s.Index, s.Count)
			}
			var m member
			if err := json.Unmarshal([]byte(r.Body), &m); err != nil {
				return Start{}, fmt.Errorf("run %s, barrier %q: shard %d's record: %w", s.Run, phase, r.Shard, err)
			}
			if m.Config != config {
				return Start{}, fmt.Errorf("run %s, barrier %q: shard %d runs with other settings than shard %d: %s; every shard must be given the same", s.Run, phase, r.Shard, s.Index, differ(m.Config, config))
			}
			if r.Shard >= 0 && r.Shard < s.Count {
				seen[r.Shard] = true
			}
			if r.At.After(last) {
				last = r.At
			}
		}
		var missing []int
		for i, ok := range seen {
			if !ok {
				missing = append(missing, i)
			}
		}
		if len(missing) == 0 {
			st := Start{Server: last.Add(s.Lead), Clock: clock}
			st.At = clock.ToLocal(st.Server)
			return st, nil
		}
		if !s.Now().Before(deadline) && !s.alive(ctx, cat, missing, clock) {
			return Start{}, &IncompleteError{Run: s.Run, Phase: phase, Count: s.Count, Missing: missing, Timeout: s.Timeout}
		}
		if !sleep(ctx, s.Poll) {
			return Start{}, ctx.Err()
		}
	}
}

// alivePhase is where a shard busy with long work (its part of a load)
// shows every so often that it still runs (Heartbeat).
const alivePhase = "alive"

// alive reports whether every missing shard has shown within the
// timeout that it still runs.
func (s *Spec) alive(ctx context.Context, cat engine.Catalog, missing []int, clock Clock) bool {
	recs, err := cat.ShardRecords(ctx, engine.ShardTable, s.Run, s.phase(alivePhase))
	if err != nil {
		return false
	}
	now := clock.ToServer(s.Now())
	for _, m := range missing {
		ok := false
		for _, r := range recs {
			ok = ok || (r.Shard == m && now.Sub(r.At) < s.Timeout)
		}
		if !ok {
			return false
		}
	}
	return true
}

// Heartbeat shows, on a connection of its own, every quarter of the
// timeout until stop is called, that this shard still runs: the shards
// waiting for it at a barrier wait on past the timeout while it does.
func (s *Spec) Heartbeat(ctx context.Context, eng engine.Engine) (stop func(), err error) {
	s.defaults()
	c, err := eng.Connect(ctx)
	if err != nil {
		return nil, err
	}
	cat := c.Catalog()
	clock, err := MeasureClock(ctx, cat, s.Now)
	if err != nil {
		c.Close()
		return nil, err
	}
	beat := func() error {
		return cat.PutShardRecord(ctx, engine.ShardTable, engine.ShardRecord{Run: s.Run, Phase: s.phase(alivePhase), Shard: s.Index, Count: s.Count, At: clock.ToServer(s.Now()), Body: "{}"})
	}
	if err := beat(); err != nil {
		c.Close()
		return nil, err
	}
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(max(s.Timeout/4, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				_ = beat()
			}
		}
	}()
	return func() {
		close(done)
		<-ended
		c.Close()
	}, nil
}

// Fail records that this shard failed, so that the shards waiting at a
// barrier for it stop waiting: they fail naming it and reason.
func (s *Spec) Fail(ctx context.Context, cat engine.Catalog, reason string) error {
	s.defaults()
	body, _ := json.Marshal(member{Token: s.token, Failed: reason})
	return cat.PutShardRecord(ctx, engine.ShardTable, engine.ShardRecord{Run: s.Run, Phase: s.phase(failPhase), Shard: s.Index, Count: s.Count, At: s.Now(), Body: string(body)})
}

// failed returns a FailedError for the first other shard that recorded
// it failed.
func (s *Spec) failed(ctx context.Context, cat engine.Catalog, phase string) error {
	recs, err := cat.ShardRecords(ctx, engine.ShardTable, s.Run, s.phase(failPhase))
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Shard == s.Index {
			continue
		}
		var m member
		_ = json.Unmarshal([]byte(r.Body), &m)
		return &FailedError{Run: s.Run, Phase: phase, Shard: r.Shard, Reason: m.Failed}
	}
	return nil
}

func memberOf(recs []engine.ShardRecord, shard int) (member, bool) {
	for _, r := range recs {
		if r.Shard == shard {
			var m member
			err := json.Unmarshal([]byte(r.Body), &m)
			return m, err == nil
		}
	}
	return member{}, false
}

// tokenHost is the host and process of a registration's token.
func tokenHost(token string) string {
	parts := strings.Split(token, "/")
	if len(parts) < 2 {
		return "another process"
	}
	return "process " + parts[1] + " on " + parts[0]
}

// differ says where two configs (lines "key=value") differ.
func differ(theirs, mine string) string {
	a, b := strings.Split(theirs, "\n"), strings.Split(mine, "\n")
	for _, l := range a {
		if !slices.Contains(b, l) {
			k, _, _ := strings.Cut(l, "=")
			for _, m := range b {
				if mk, _, _ := strings.Cut(m, "="); mk == k {
					return fmt.Sprintf("%s there, %s here", l, m)
				}
			}
			return l + " there only"
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			return l + " here only"
		}
	}
	return "they differ"
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Store keeps this shard's result file (its JSON) under name (a plan's
// cell; "run" for a run) in engine.ResultTable, replacing what it stored
// there before.
func (s *Spec) Store(ctx context.Context, cat engine.Catalog, name string, file []byte) error {
	s.defaults()
	return cat.PutShardRecord(ctx, engine.ResultTable, engine.ShardRecord{Run: s.Run, Phase: name, Shard: s.Index, Count: s.Count, At: s.Now(), Body: string(file)})
}

// Collect returns the result files the shards of run stored, by name,
// each name's in shard order.
func Collect(ctx context.Context, cat engine.Catalog, run string) (map[string][]engine.ShardRecord, error) {
	recs, err := cat.ShardRecords(ctx, engine.ResultTable, run, "")
	if err != nil {
		return nil, err
	}
	out := map[string][]engine.ShardRecord{}
	for _, r := range recs {
		out[r.Phase] = append(out[r.Phase], r)
	}
	return out, nil
}

// Remove deletes the barrier and result records of run (of every run
// when run is ""), dropping the tables once they are empty, and returns
// how many records it deleted.
func Remove(ctx context.Context, cat engine.Catalog, run string) (int, error) {
	n := 0
	for _, t := range []string{engine.ShardTable, engine.ResultTable} {
		k, err := cat.DeleteShardRecords(ctx, t, run)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// RemoveBarriers deletes every run's barrier records (dropping
// engine.ShardTable), and leaves their stored results, and returns the
// runs whose results are stored still.
func RemoveBarriers(ctx context.Context, cat engine.Catalog) (stored []string, err error) {
	if _, err := cat.DeleteShardRecords(ctx, engine.ShardTable, ""); err != nil {
		return nil, err
	}
	recs, err := cat.ShardRecords(ctx, engine.ResultTable, "", "")
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if !slices.Contains(stored, r.Run) {
			stored = append(stored, r.Run)
		}
	}
	return stored, nil
}

// Tell records body under phase in engine.ShardTable for the other
// shards to read (Told): what one shard found that all report, such as
// shard 0's check verdict.
func (s *Spec) Tell(ctx context.Context, cat engine.Catalog, phase, body string) error {
	s.defaults()
	return cat.PutShardRecord(ctx, engine.ShardTable, engine.ShardRecord{Run: s.Run, Phase: s.phase(phase), Shard: s.Index, Count: s.Count, At: s.Now(), Body: body})
}

// Told returns what shard from recorded under phase (Tell), and whether
// it did.
func (s *Spec) Told(ctx context.Context, cat engine.Catalog, phase string, from int) (string, bool, error) {
	recs, err := cat.ShardRecords(ctx, engine.ShardTable, s.Run, s.phase(phase))
	if err != nil {
		return "", false, err
	}
	for _, r := range recs {
		if r.Shard == from {
			return r.Body, true, nil
		}
	}
	return "", false, nil
}
