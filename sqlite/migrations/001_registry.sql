CREATE TABLE zones (
	name       TEXT PRIMARY KEY,
	alabel     TEXT NOT NULL UNIQUE,
	languages  TEXT NOT NULL,
	ldh        INTEGER NOT NULL,
	min_length INTEGER NOT NULL,
	max_length INTEGER NOT NULL
);
CREATE TABLE registrars (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL UNIQUE,
	token_hash BLOB NOT NULL UNIQUE,
	created    INTEGER NOT NULL
);
CREATE TABLE domains (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	zone         TEXT NOT NULL REFERENCES zones (name),
	label        TEXT NOT NULL,
	alabel       TEXT NOT NULL,
	lang         TEXT NOT NULL,
	registrar_id INTEGER NOT NULL REFERENCES registrars (id),
	created      INTEGER NOT NULL,
	UNIQUE (zone, label)
);
CREATE INDEX domains_registrar ON domains (registrar_id);
-- The conflict sets: a label of a zone is held by at most one domain.
-- (WITHOUT ROWID: the primary key is the table, one B-tree fewer per label.)
CREATE TABLE blocks (
	zone      TEXT NOT NULL,
	label     TEXT NOT NULL,
	domain_id INTEGER NOT NULL REFERENCES domains (id),
	PRIMARY KEY (zone, label)
) WITHOUT ROWID;
CREATE INDEX blocks_domain ON blocks (domain_id);
CREATE TABLE audit (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	registrar TEXT NOT NULL,
	action    TEXT NOT NULL,
	name      TEXT NOT NULL,
	result    TEXT NOT NULL
);
