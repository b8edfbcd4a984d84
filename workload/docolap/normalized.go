package docolap

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

// The tables of the normalized form (--normalized): the events flattened
// into typed columns, and the commits PushEvents list. Their names differ
// from the JSON form's, so both forms of a data set can be prepared in
// one database side by side.
const (
	NormTable        = "norm_events"
	NormCommitsTable = "norm_commits"
)

// NormDeclared is the normalized form's tables, the relational rewrite
// the study proposed as future work, on SQL engines only.
//
// norm_events has one row per event, its envelope in typed columns: id
// (the number "id" holds, the primary key), type, actor_id, actor_login,
// repo_id, repo_name, org_id and org_login (NULL when the event has no
// org), public, created_at; and the payload's scalars the queries and a
// user of the events need, each NULL when the event's payload has none:
// action (payload.action), ref and ref_type (payload.ref, NULL too when
// the JSON holds null, and payload.ref_type), push_size and
// push_distinct_size (payload.size and distinct_size), number
// (payload.number, a pull request's) and issue_number and issue_comments
// (payload.issue.number and comments). Its five indexes are the study's,
// on the columns its five path indexes are on: type, repo_name, action,
// actor_login and issue_comments.
//
// norm_commits has one row per commit a PushEvent lists (payload.commits,
// at most 20): event_id and position (from 0, in the list's order) as the
// primary key, sha, author_email, author_name, message and is_distinct.
//
// The rest of the payloads (the issue, comment, pull request, release
// and forkee objects with their users, bodies and URL templates) has no
// column: the normalized form keeps what a relational design would keep
// for these queries, not every member of the documents, so its size on
// disk is that of the columns above, not of the JSON.
func NormDeclared() []*schema.Table {
	name := func(n string, null bool) schema.Column {
		return schema.Column{Name: n, Type: schema.Varchar, Size: 255, Null: null}
	}
	num := func(n string, t schema.Type) schema.Column { return schema.Column{Name: n, Type: t, Null: true} }
	return []*schema.Table{{
		Name: NormTable,
		Columns: []schema.Column{
			{Name: "id", Type: schema.BigInt},
			{Name: "type", Type: schema.Varchar, Size: 40},
			{Name: "actor_id", Type: schema.BigInt},
			name("actor_login", false),
			{Name: "repo_id", Type: schema.BigInt},
			name("repo_name", false),
			num("org_id", schema.BigInt),
			name("org_login", true),
			{Name: "public", Type: schema.Bool},
			{Name: "created_at", Type: schema.Timestamp},
			{Name: "action", Type: schema.Varchar, Size: 20, Null: true},
			name("ref", true),
			{Name: "ref_type", Type: schema.Varchar, Size: 20, Null: true},
			num("push_size", schema.Int),
			num("push_distinct_size", schema.Int),
			num("number", schema.BigInt),
			num("issue_number", schema.BigInt),
			num("issue_comments", schema.BigInt),
		},
		PrimaryKey: []string{"id"},
		Indexes: []schema.Index{
			{Name: "norm_events_repo_name", Keys: []schema.Key{schema.Col("repo_name")}},
			{Name: "norm_events_action", Keys: []schema.Key{schema.Col("action")}},
			{Name: "norm_events_type", Keys: []schema.Key{schema.Col("type")}},
			{Name: "norm_events_actor_login", Keys: []schema.Key{schema.Col("actor_login")}},
			{Name: "norm_events_comments", Keys: []schema.Key{schema.Col("issue_comments")}},
		},
	}, {
		Name: NormCommitsTable,
		Columns: []schema.Column{
			{Name: "event_id", Type: schema.BigInt},
			{Name: "position", Type: schema.Int},
			{Name: "sha", Type: schema.Char, Size: 40},
			name("author_email", false),
			name("author_name", false),
			{Name: "message", Type: schema.Text},
			{Name: "is_distinct", Type: schema.Bool},
		},
		PrimaryKey: []string{"event_id", "position"},
	}}
}

// flattener makes the rows of one batch's events: it reuses its buffer
// and its event between events, so one belongs to one RowSource.
type flattener struct {
	g   *Generator
	buf []byte
	ev  flatEvent
}

// read reads event i into f.ev, from the event's JSON as the JSON form
// loads it (readFlat), so that both forms hold the same values by
// construction.
func (f *flattener) read(i int64) error {
	f.buf = f.g.AppendEvent(f.buf[:0], i)
	if err := readFlat(f.buf, &f.ev); err != nil {
		return fmt.Errorf("docolap: event %d: %w", i, err)
	}
	return nil
}

// eventRow writes f.ev as a norm_events row into row.
func (f *flattener) eventRow(row []any) error {
	ev := &f.ev
	id, err := strconv.ParseInt(ev.ID, 10, 64)
	if err != nil {
		return fmt.Errorf("docolap: event id %q: %w", ev.ID, err)
	}
	at, err := time.Parse(time.RFC3339, ev.CreatedAt)
	if err != nil {
		return fmt.Errorf("docolap: event %s created_at: %w", ev.ID, err)
	}
	row[0], row[1], row[2], row[3], row[4], row[5] = id, ev.Type, ev.ActorID, ev.ActorLogin, ev.RepoID, ev.RepoName
	row[6], row[7] = nil, nil
	if ev.HasOrg {
		row[6], row[7] = ev.OrgID, ev.OrgLogin
	}
	row[8], row[9] = ev.Public, at.UTC()
	row[10], row[11], row[12] = str(ev.Action), str(ev.Ref), str(ev.RefType)
	row[13], row[14], row[15] = integer(ev.Size), integer(ev.DistinctSize), integer(ev.Numbr)
	row[16], row[17] = integer(ev.IssueNumber), integer(ev.Comments)
	return nil
}

// str and integer are a JSON member's value as a column's: nil (NULL)
// when it is absent or null.
func str(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func integer(n *int64) any {
	if n == nil {
		return nil
	}
	return *n
}

// NormTables is the normalized form's tables (NormDeclared) with their
// rows, batchEvents events a batch in both: batch b of norm_events is
// events b·batchEvents on, one row each; batch b of norm_commits the
// commits those events' PushEvents list. Each row is read back from the
// event's JSON (AppendEvent), so the normalized form holds the JSON
// form's values.
func (w *Docolap) NormTables() []workload.Table {
	g := w.Generator()
	n := g.Events()
	batches := int((n + batchEvents - 1) / batchEvents)
	decl := NormDeclared()
	return []workload.Table{{
		Schema:  decl[0],
		Batches: batches,
		Rows: func(batch int) engine.RowSource {
			first := int64(batch) * batchEvents
			return &flatRows{f: flattener{g: g}, next: first, end: min(first+batchEvents, n), row: make([]any, len(decl[0].Columns))}
		},
	}, {
		Schema:  decl[1],
		Batches: batches,
		Rows: func(batch int) engine.RowSource {
			first := int64(batch) * batchEvents
			return &flatRows{f: flattener{g: g}, next: first, end: min(first+batchEvents, n), row: make([]any, len(decl[1].Columns)), commits: true}
		},
	}}
}

// flatRows is a RowSource of the norm_events rows of events [next, end),
// or with commits set of the norm_commits rows of their PushEvents.
type flatRows struct {
	f         flattener
	next, end int64
	commits   bool
	// commit is the next commit of the event read last, for commits.
	commit int
	row    []any
	err    error
}

func (s *flatRows) Next() bool {
	if s.err != nil {
		return false
	}
	if !s.commits {
		if s.next >= s.end {
			return false
		}
		if s.err = s.f.read(s.next); s.err == nil {
			s.err = s.f.eventRow(s.row)
		}
		s.next++
		return s.err == nil
	}
	for s.commit >= len(s.f.ev.Commits) {
		if s.next >= s.end {
			return false
		}
		if s.err = s.f.read(s.next); s.err != nil {
			return false
		}
		s.next++
		s.commit = 0
	}
	id, err := strconv.ParseInt(s.f.ev.ID, 10, 64)
	if err != nil {
		s.err = fmt.Errorf("docolap: event id %q: %w", s.f.ev.ID, err)
		return false
	}
	c := &s.f.ev.Commits[s.commit]
	s.row[0], s.row[1], s.row[2], s.row[3], s.row[4], s.row[5], s.row[6] = id, int64(s.commit), c.SHA, c.Email, c.Name, c.Message, c.Distinct
	s.commit++
	return true
}

func (s *flatRows) Values() ([]any, error) { return s.row, s.err }
func (s *flatRows) Err() error             { return s.err }

// normSQL writes one SQL engine's name ordering and average for the
// normalized queries, as jsonSQL does for the JSON ones: names sort in
// byte order, averages read alike everywhere.
type normSQL struct {
	byName func(col string) string
	avg    func(col string) string
}

// NormSQL returns query name's text on the normalized tables for the SQL
// engine of kind (as SQL's): the same rows, in the same order, as SQL's
// on the JSON form of the same events. Each filters and groups on the
// plain columns the five indexes are on.
func NormSQL(kind engine.Kind, name string) (string, error) {
	d, err := dialectFor(kind)
	if err != nil {
		return "", err
	}
	j := d.norm
	q, ok := LookupQuery(name)
	if !ok {
		return "", fmt.Errorf("docolap: no query %q (known: %s)", name, QueryNames())
	}
	switch q.Name {
	case QueryA:
		return "SELECT repo_name AS repo, count(*) AS n FROM " + NormTable +
			" WHERE type = 'IssuesEvent' AND action = 'opened'" +
			" GROUP BY repo_name ORDER BY n DESC, " + j.byName("repo_name"), nil
	case QueryB:
		return "SELECT type, count(*) AS n FROM " + NormTable +
			" GROUP BY type ORDER BY n DESC, " + j.byName("type"), nil
	case QueryC:
		return "SELECT actor_login AS login, count(*) AS n FROM " + NormTable +
			" GROUP BY actor_login ORDER BY n DESC, " + j.byName("actor_login") + " LIMIT 10", nil
	default: // D, D2
		typName := DEventType
		if q.Name == QueryD2 {
			typName = D2EventType
		}
		return "SELECT repo_name AS repo, " + j.avg("issue_comments") + " AS comments FROM " + NormTable +
			" WHERE type = '" + typName + "' AND issue_comments > 2" +
			" GROUP BY repo_name ORDER BY comments DESC, " + j.byName("repo_name"), nil
	}
}

// RunNormSQL runs query name on the normalized tables on c and returns
// its rows.
func RunNormSQL(ctx context.Context, c engine.SQLConn, name string) ([]Row, error) {
	return runSQL(ctx, c, name, NormSQL)
}

// Normalized reports whether the options ask for the normalized form
// (--normalized).
func (w *Docolap) Normalized() bool { return w.opts.normalized }
