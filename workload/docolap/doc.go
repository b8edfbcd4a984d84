// Package docolap is the JSON document analytics workload of the
// PostgreSQL/MongoDB OLAP study: a year of GitHub Archive events (212 M in
// 2015) loaded as jsonb in PostgreSQL and as documents in MongoDB, five
// expression indexes on each, and four aggregate queries timed. The
// archive cannot be downloaded here and users choose their size, so the
// events are generated.
//
// # The events
//
// A Generator makes 2015-shaped events in the Events API format the
// archive recorded from 2015-01-01: id (a numeric string, increasing with
// gaps), type, actor {id, login, gravatar_id "", url, avatar_url}, repo
// {id, name, url}, payload, public (true), created_at (whole UTC seconds)
// and org, present only when the repository belongs to an organization.
// The 14 types of 2015 come in the 2013 mix (Follow and Gist events
// dropped, Release added): half PushEvents, then Create, Watch,
// IssueComment, Issues, PullRequest, Fork and the rare ones; each carries
// its payload (commits with SHAs and messages, full issue, comment, user
// and repository objects with their URL templates), so sizes range from
// about 450 bytes (WatchEvent) through about 3 KB (IssuesEvent) to 16 KB
// (PullRequestEvent), about 2.5 KB on average. Actors and repositories
// follow Hurwitz–Zipf laws (exponent 1.1) and five bot accounts make
// 2.2 % of the events (GoogleCodeExporter opening issues on migrated
// projects first), so queries A and C have clear heads; a CreateEvent of
// a repository makes a new repository, which makes many repositories
// single-event. Days follow each other from 2015-01-01 at 644,000 events
// a weekday and 420,000 a weekend day (580,000 on average), spread over a
// day by a smooth curve peaking at 15:30 UTC.
//
// Event i is a pure function of the seed (--seed-data) and i: batches of
// events load in parallel, in any order, and a data set is the beginning
// of every larger one with the same seed (the study's incremental
// stages). The populations of actors and repositories grow with i, a
// twentieth and a twelfth of the events so far. AppendEvent writes the JSON by hand into a
// reused buffer; AppendEventBSON writes the BSON MongoDB stores for that
// JSON, which the implementation for MongoDB loads instead of JSON to be
// parsed.
//
// # Tables and queries
//
// One table, events: id (the event's id as a number, the primary key; _id
// on MongoDB) and doc, the event as a JSON document (jsonb on PostgreSQL,
// JSON on MySQL/MariaDB, JSON text on SQLite; on MongoDB the event is the
// document itself, its fields at the top level beside _id, as the study
// imported the events), with the study's five path indexes declared once
// (Declared): type, repo.name, payload.action, actor.login and
// payload.issue.comments (as an integer).
//
// The queries (Queries) are the study's A (repositories by opened
// issues), B (event types by count), C (the 10 most active actors) and D
// (repositories' average comments, for issues with more than two, on
// PushEvent), plus D2 (D′: D on IssueCommentEvent). D returns nothing on
// faithful data, since no PushEvent carries payload.issue: it is kept, a
// scan that keeps nothing. Each is written per engine (SQL: PostgreSQL's
// -> and ->>, MySQL/MariaDB's JSON_UNQUOTE(JSON_EXTRACT()), SQLite's
// json_extract, each the very expression the engine indexes; MongoDB:
// aggregation pipelines with allowDiskUse, in package
// workload/docolap/mongo) and ordered by its figure and then by name in
// byte order, so that every engine returns the same rows (Row). Answers
// computes them directly from the generator's output, for checking.
//
// # The normalized form
//
// --normalized (SQL engines only) stores the same events as the
// relational rewrite the study proposed as future work, so that a user
// can measure what JSON costs (NormDeclared). norm_events has one row per
// event, the envelope in typed columns (id, type, actor_id, actor_login,
// repo_id, repo_name, org_id and org_login, NULL when the event has no
// org, public, created_at) and the payload's scalars the queries need and
// a few more (action, ref, ref_type, push_size, push_distinct_size,
// number, issue_number, issue_comments), each NULL when the payload has
// none; its five indexes are the study's, on the columns that hold the
// five indexed paths. norm_commits has one row per commit a PushEvent
// lists (event_id, position, sha, author_email, author_name, message,
// is_distinct). The issue, comment, pull request, release and forkee
// objects have no columns: the form keeps what a relational design for
// these queries would keep, so its size on disk is not the JSON's.
// NormTables reads every row back from the event's JSON (a reader that
// skips the members without a column), so the two forms hold the same
// values and every row is a pure function of (seed, i); batch b of
// norm_commits holds the commits of batch b's events. NormSQL writes the
// queries in plain SQL on the indexed columns, ordered as the JSON ones,
// so that they return the same rows. On MySQL and MariaDB the name
// columns take the database's collation, which may ignore case: the
// generated names never differ by case alone, so the groups are the same.
//
// The normalized tables have names of their own: both forms of a data
// set can be prepared side by side in one database. Each form's run,
// check and cleanup see its own tables only (cleanup docolap --normalized
// drops the normalized ones); a run of a form that is not prepared fails
// as not prepared, naming its missing table. MongoDB refuses --normalized
// before any work, an option error naming the flag.
//
// # Running
//
// Each query is an op: a worker runs --query's list (all by default) in
// turn, one query per Next, with the closed-loop runner. Querier runs one
// query by name on one connection and returns its rows, on every engine
// family.
//
// This package imports no engine implementation and no driver; the
// implementation for MongoDB is workload/docolap/mongo.
package docolap
