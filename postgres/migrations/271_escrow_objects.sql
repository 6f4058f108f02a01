-- Registry data escrow (docs/escrow.md): a fingerprint of every object
-- the last deposits hold (kind domain, host or contact by the object's
-- id; reserved by position), so that a DIFF deposit holds exactly what
-- changed since them and deletes what is gone. name is the key a delete
-- names (a domain's A-label, a contact's handle, a host's roid, a
-- reserved name's A-label); extra, for a domain, the A-labels of its NNDN
-- objects.
CREATE TABLE escrow_objects (
	kind  TEXT NOT NULL,
	id    BIGINT NOT NULL,
	hash  TEXT NOT NULL,
	name  TEXT NOT NULL,
	extra TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (kind, id)
);
