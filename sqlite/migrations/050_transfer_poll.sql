-- Transfers and the poll queue (issue 23, items 6 and 7; docs/registry.md).
-- A domain's authInfo (RFC 5731 §2.6, RFC 9154): set by its sponsor, kept
-- only as a slow salted hash (argon2id, PHC string form), never shown.
-- No foreign key to domains: a purge deletes the domain and this row with it.
CREATE TABLE domain_auth (
	domain_id INTEGER PRIMARY KEY,
	pw_hash   TEXT NOT NULL,
	updated   INTEGER NOT NULL
);
-- Transfer requests and their outcome (RFC 5731 §3.2.4): at most one
-- pending per domain (the partial unique index). due is when the server
-- approves a pending one by itself; acted when it was approved, rejected
-- or cancelled. period is the months the transfer adds (0: none).
CREATE TABLE transfers (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	domain_id  INTEGER NOT NULL,
	gaining_id INTEGER NOT NULL REFERENCES registrars (id),
	losing_id  INTEGER NOT NULL REFERENCES registrars (id),
	status     TEXT NOT NULL,
	requested  INTEGER NOT NULL,
	due        INTEGER NOT NULL,
	acted      INTEGER,
	period     INTEGER NOT NULL
);
CREATE UNIQUE INDEX transfers_pending ON transfers (domain_id) WHERE status = 'pending';
CREATE INDEX transfers_due ON transfers (due) WHERE status = 'pending';
CREATE INDEX transfers_domain ON transfers (domain_id, id);
-- The zones' transfer settings (absent: the defaults, 5 days pending, 60
-- days locked after a create or a transfer), in seconds.
CREATE TABLE transfer_policy (
	zone    TEXT PRIMARY KEY REFERENCES zones (name),
	pending_s INTEGER NOT NULL,
	lock_s    INTEGER NOT NULL
);
-- The poll queues (RFC 5730 §2.9.2.3): an outbox per registrar, ordered by
-- seq, which each enqueueing transaction takes from the registrar's row of
-- poll_queues (held locked until it commits), so that a queue is in the
-- order its messages were committed. msgs is how many messages are queued.
CREATE TABLE poll_queues (
	registrar_id INTEGER PRIMARY KEY REFERENCES registrars (id),
	seq          INTEGER NOT NULL,
	msgs         INTEGER NOT NULL
);
CREATE TABLE poll_messages (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	registrar_id INTEGER NOT NULL REFERENCES registrars (id),
	seq          INTEGER NOT NULL,
	queued       INTEGER NOT NULL,
	kind         TEXT NOT NULL,
	name         TEXT NOT NULL,
	alabel       TEXT NOT NULL,
	msg          TEXT NOT NULL,
	data         TEXT NOT NULL,
	UNIQUE (registrar_id, seq)
);
-- Who did what through which front end: the channel (epp, http, cli,
-- worker) and the EPP transaction identifiers of each audit record.
ALTER TABLE audit ADD COLUMN channel TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN cltrid TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN svtrid TEXT NOT NULL DEFAULT '';
