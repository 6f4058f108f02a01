-- Operations (issue 10; docs/operations.md): revoked registrars, reserved
-- names per zone, the readiness heartbeat, and indexes for audit queries.
ALTER TABLE registrars ADD COLUMN revoked INTEGER; -- when the token was revoked; NULL: it works
CREATE TABLE reserved (
	zone    TEXT NOT NULL REFERENCES zones (name),
	label   TEXT NOT NULL, -- canonical: U-label (NFC) or lower-case LDH
	reason  TEXT NOT NULL,
	created INTEGER NOT NULL,
	PRIMARY KEY (zone, label)
);
-- /readyz writes a row here (and deletes the older ones): a durable write
-- that needs fresh space, so it fails while the disk is full.
CREATE TABLE heartbeat (
	id  INTEGER PRIMARY KEY AUTOINCREMENT,
	at  INTEGER NOT NULL,
	pad TEXT NOT NULL
);
CREATE INDEX audit_registrar ON audit (registrar, id);
CREATE INDEX audit_name ON audit (name, id);
