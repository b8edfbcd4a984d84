-- A hot-row counter: each transaction adds a random amount to one of ten
-- counters, the first ones far more often (Zipfian), and logs it.
-- Runs on PostgreSQL, MariaDB/MySQL and SQLite. Tables, created first:
--
--   CREATE TABLE counters (id int PRIMARY KEY, n bigint NOT NULL);
--   INSERT INTO counters VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0),
--                               (6, 0), (7, 0), (8, 0), (9, 0), (10, 0);
--   CREATE TABLE counter_log (id int NOT NULL, delta int NOT NULL);
--
-- Afterwards each counter's n equals the sum of its log's deltas:
--
--   SELECT c.id FROM counters c
--    WHERE c.n <> (SELECT COALESCE(SUM(delta), 0) FROM counter_log l WHERE l.id = c.id);
--
--   dbarena run script --file examples/scripts/counter.sql --threads 8 --target …
\set id random_zipfian(1, 10, 1.5)
\set delta random(1, 100)
BEGIN;
UPDATE counters SET n = n + :delta WHERE id = :id;
INSERT INTO counter_log (id, delta) VALUES (:id, :delta);
COMMIT;
