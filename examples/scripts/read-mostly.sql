-- A read-mostly API: 95% of calls read one user's profile, 5% record a
-- visit; the users read most are a few, spread over the table (a Zipfian
-- draw permuted). Runs on PostgreSQL, MariaDB/MySQL and SQLite. Table,
-- created and filled first with ids 1 to N, given as -D users=N:
--
--   CREATE TABLE users (id int PRIMARY KEY, name varchar(40) NOT NULL,
--                       visits bigint NOT NULL);
--
--   dbarena run script --file examples/scripts/read-mostly.sql -D users=1000 --target …
\set uid 1 + permute(random_zipfian(1, :users, 1.1) - 1, :users, 7)
\if random(1, 100) <= 95
SELECT id, name, visits FROM users WHERE id = :uid;
\else
UPDATE users SET visits = visits + 1 WHERE id = :uid;
\endif
