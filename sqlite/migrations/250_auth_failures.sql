-- Guessing authInfo (issue 34; registry/authguard.go, docs/registry.md
-- "Guessing the authInfo"): every authInfo a registrar gives that does not
-- verify (a transfer request, a stranger's transfer query, a stranger's
-- contact info) is one row, kept 24 hours (older rows are deleted as new
-- ones come). The registry counts them per registrar and object and per
-- registrar over every object, in a sliding window, and backs off. kind
-- is 'domain' (object_id: domains.id) or 'contact' (contacts.id). No
-- foreign key to the objects: a purge deletes a domain, not its history.
CREATE TABLE auth_failures (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	kind         TEXT NOT NULL,
	object_id    INTEGER NOT NULL,
	registrar_id INTEGER NOT NULL REFERENCES registrars (id),
	at           INTEGER NOT NULL
);
CREATE INDEX auth_failures_object ON auth_failures (kind, object_id, registrar_id, at);
CREATE INDEX auth_failures_registrar ON auth_failures (registrar_id, at);
CREATE INDEX auth_failures_at ON auth_failures (at);
-- When the sponsor of an object was last told by poll that its authInfo
-- is being guessed: one message per object per window, not one per
-- failure.
CREATE TABLE auth_alerts (
	kind      TEXT NOT NULL,
	object_id INTEGER NOT NULL,
	at        INTEGER NOT NULL,
	PRIMARY KEY (kind, object_id)
);
-- The transfer requests of a gaining registrar for a domain in a window
-- (the rate limit) are counted on transfers.
CREATE INDEX transfers_requests ON transfers (domain_id, gaining_id, requested);
