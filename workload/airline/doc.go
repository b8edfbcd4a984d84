// Package airline is the airline-booking transaction benchmark of the
// PostgreSQL/MongoDB study: users buy tickets; each booking reads a random
// flight schedule joined with its aircraft, inserts a seat and a payment,
// and upserts the (schedule, day) entry of an audit table that counts the
// seats taken. With --day-range 1 (the study's value) every booking of a
// schedule hits the same audit entry, so concurrent bookings conflict;
// the failed ones are retried with the same input after exponential
// back-off with jitter, up to --max-retries, and counted.
//
// Reference data (about 200 aircraft, 15,000 schedules) is generated from
// --seed-data, the same rows on every engine: the study's public data set
// cannot be fetched here. Days are stored as integers yyyymmdd, portable
// across engines.
//
// # SQL engines
//
// The booking is one transaction, BEGIN … COMMIT, at --isolation
// (read-committed, repeatable-read or serializable; empty keeps the
// engine's own). --transactions off is refused: an SQL engine always runs
// the booking in a transaction.
//
// # MongoDB
//
// The implementation for MongoDB is package workload/airline/mongo,
// registered for engine.FamilyMongo: this package holds what every family
// shares (options, reference data, the booking's input, user ids, the
// invariants' names) and the SQL statements, and imports no engine
// implementation or driver.
//
// The data model is the study's, referenced rather than embedded: five
// collections that mirror the tables (aircraft, schedule, seat, payment,
// audit), with the tables' column names as fields. aircraft and schedule
// keep their ids as _id; seat, payment and audit documents get ObjectIds,
// and audit has a unique index on (schedule_id, day). Embedding (seats and
// the audit count inside a schedule-day document) would make the booking
// a single-document update, atomic without transactions, but it is not
// what the study measured: its point was the cost of multi-document
// transactions, and a model built around one operation makes others
// (a user's bookings, payments by date) harder, with the data duplicated.
//
// A booking is an aggregate on schedule ($match on _id, $lookup of the
// aircraft by IATA code for its capacity, $project), an insertOne into
// seat, an insertOne into payment and an updateOne on audit with upsert
// ({schedule_id, day}, {$inc: {seats_occupied: 1}, $set: {last_date}}).
// Statements are counted as on the SQL engines (one read, three writes,
// starting and committing the transaction as other).
//
// --transactions on (the default) runs the four in one transaction on the
// worker's session. MongoDB's transactions have one isolation level:
// every transaction reads one snapshot, and writing a document another
// transaction wrote since that snapshot fails at once with a write
// conflict (a TransientTransactionError), which the runner retries like a
// serialization failure. That is snapshot isolation, what PostgreSQL
// calls repeatable read; the study equated it with SERIALIZABLE, but it
// lets write skew through. For this booking the two coincide: concurrent
// bookings of one (schedule, day) all write its audit document, so one of
// them is aborted under either. --isolation therefore accepts
// repeatable-read or nothing and refuses the other levels; to reproduce
// the study, run PostgreSQL with --isolation serializable and MongoDB with
// the default, and read the table of isolation levels in the study with
// this in mind.
//
// --transactions off is the study's run without transactions: each
// operation alone, atomic for its one document only. A booking is then
// never aborted and never conflicts (concurrent $inc on one document
// serialise in the server); what it gives up is that a booking is all or
// nothing and isolated: readers see
// a seat whose payment or audit count is not there yet, and a booking cut
// short (a crash, a lost connection, an interrupted run, an operation that
// fails) leaves its seat and payment without the audit increment for good.
// Check counts the (schedule, day) pairs where that happened. The
// --booking-sleep of such a run comes before the audit upsert, the only
// place where it holds a booking half done (there is no commit to sleep
// before); with transactions it comes before the commit, as on the SQL
// engines. Outside a transaction every write waits for its own write
// concern (w: majority unless the target URL sets w), inside one only the
// commit does, so the URL's w and journal settings weigh on the two modes
// differently. Results of the two modes measure different guarantees and
// should be compared as such.
//
// # Checks
//
// Check verifies, on every engine, that every (schedule, day) audit entry
// counts exactly the seats booked for it, that no seat lacks its audit
// entry, and that seats and payments pair one to one by user. Each broken
// invariant is one workload.Problem naming a few violations and how many
// there are in all.
package airline
