-- akshara: foreign-keys-off
-- The (zone, label) uniqueness of domains as a named unique index,
-- domains_zone_label, instead of the table constraint UNIQUE (zone, label)
-- of migration 001 (issue 26): the index of a table constraint
-- (sqlite_autoindex_domains_1) can never be dropped, and a bulk import
-- into an empty zone drops every index of domains, writes the rows in
-- the file's order, and builds the indexes again at the end with CREATE
-- INDEX (a sort instead of millions of random B-tree inserts). The
-- uniqueness and the errors that break it are the same (a duplicate is a
-- unique constraint violation, and ON CONFLICT (zone, label) takes a
-- unique index as it takes the constraint). PostgreSQL keeps its
-- constraint.
--
-- SQLite cannot drop a table constraint: the table is rebuilt by the
-- "other kinds of table schema changes" procedure of
-- https://www.sqlite.org/lang_altertable.html#otheralter. The first line
-- has the runner (internal/sqlstore, migrateUnchecked) run this file on one
-- connection with its foreign-key checks off (DROP TABLE of a parent with
-- them on deletes its rows first, and the pragma is a no-op inside a
-- transaction), run PRAGMA foreign_key_check before COMMIT (a row is an
-- error and rolls it all back), and turn the checks on again.
--
-- The indexes and triggers of domains are recreated below by name, as
-- migrations 001-170 left them. One this file does not know of (an
-- operator's own) would be dropped with the old table without a word:
-- stop instead, naming the constraint that says what to do (the table
-- is dropped at once, in the same transaction).
CREATE TABLE migration_180_guard (
	unknown TEXT,
	CONSTRAINT "migration 180 would drop an index or trigger of domains it does not know of: drop it and create it again after the upgrade" CHECK (unknown IS NULL)
);
INSERT INTO migration_180_guard
	SELECT group_concat(name, ', ') FROM sqlite_master
	WHERE tbl_name = 'domains' AND type IN ('index', 'trigger') AND name NOT IN (
		'sqlite_autoindex_domains_1', 'domains_registrar_id', 'domains_zone_alabel',
		'domains_expires', 'domains_redemption_end', 'domains_purge_at',
		'cache_domains_upd', 'cache_domains_del');
DROP TABLE migration_180_guard;

-- The table of migrations 001, 030 and 040: the same columns, types,
-- defaults and order, AUTOINCREMENT and references, without the UNIQUE
-- table constraint.
CREATE TABLE domains_new (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	zone           TEXT NOT NULL REFERENCES zones (name),
	label          TEXT NOT NULL,
	alabel         TEXT NOT NULL,
	lang           TEXT NOT NULL,
	registrar_id   INTEGER NOT NULL REFERENCES registrars (id),
	created        INTEGER NOT NULL,
	data_version   TEXT NOT NULL DEFAULT '',
	legacy         TEXT NOT NULL DEFAULT '',
	expires        BIGINT NOT NULL DEFAULT 0,
	statuses       TEXT NOT NULL DEFAULT '',
	redemption_end BIGINT NOT NULL DEFAULT 0,
	purge_at       BIGINT NOT NULL DEFAULT 0,
	renewed        BIGINT NOT NULL DEFAULT 0,
	autorenewed    BIGINT NOT NULL DEFAULT 0,
	updated        BIGINT NOT NULL DEFAULT 0,
	rev            BIGINT NOT NULL DEFAULT 0
);
-- every row, its id kept, in id order (appended: no index yet)
INSERT INTO domains_new (id, zone, label, alabel, lang, registrar_id, created, data_version, legacy,
		expires, statuses, redemption_end, purge_at, renewed, autorenewed, updated, rev)
	SELECT id, zone, label, alabel, lang, registrar_id, created, data_version, legacy,
		expires, statuses, redemption_end, purge_at, renewed, autorenewed, updated, rev
	FROM domains ORDER BY id;
-- AUTOINCREMENT's counter: DROP TABLE deletes the row of domains in
-- sqlite_sequence and the RENAME below renames that of domains_new, which
-- the copy set to the highest id copied. A deleted highest id (and every
-- id the old table ever gave) must never be given again: the counter
-- goes on from the old one.
DELETE FROM sqlite_sequence WHERE name = 'domains_new';
INSERT INTO sqlite_sequence (name, seq)
	SELECT 'domains_new', seq FROM (
		SELECT MAX(seq) AS seq FROM (
			SELECT seq FROM sqlite_sequence WHERE name = 'domains'
			UNION ALL SELECT MAX(id) FROM domains))
	WHERE seq IS NOT NULL;

-- With the foreign-key checks off, no implicit DELETE: the rows of
-- blocks, exemptions, exempt_sets, hosts, domain_hosts, ds_records and
-- domain_contacts that name domains (id) refer to the new table once it
-- has the name (their REFERENCES clauses name "domains", not a table).
-- Its triggers and indexes go with it, and so do its planner statistics
-- (sqlite_stat1 and sqlite_stat4 rows, if ANALYZE was ever run on the
-- file: the store never runs it on SQLite); run ANALYZE again then.
DROP TABLE domains;
ALTER TABLE domains_new RENAME TO domains;

-- the (zone, label) uniqueness, now an index that can be dropped
CREATE UNIQUE INDEX domains_zone_label ON domains (zone, label);
-- the indexes of migrations 070, 140 and 170, as they were
CREATE INDEX domains_registrar_id ON domains (registrar_id, id);
CREATE INDEX domains_zone_alabel ON domains (zone, alabel);
CREATE INDEX domains_expires ON domains (expires) WHERE expires > 0;
CREATE INDEX domains_redemption_end ON domains (redemption_end) WHERE redemption_end > 0;
CREATE INDEX domains_purge_at ON domains (purge_at) WHERE purge_at > 0;
-- the read cache's triggers of migration 150, as they were
CREATE TRIGGER cache_domains_upd AFTER UPDATE OF zone, label, alabel, lang, registrar_id, created, data_version, legacy, statuses, purge_at, redemption_end ON domains
	WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, domain_id) VALUES (NEW.zone, NEW.id);
END;
CREATE TRIGGER cache_domains_del AFTER DELETE ON domains WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, domain_id) VALUES (OLD.zone, OLD.id);
END;

