-- Continuous DNS publication (issue 37; registry/dnsoutbox.go, dnspub/,
-- docs/delegation.md "Continuous publication"): every command that
-- changes what a zone publishes records the owner names it changed, in
-- its own transaction. The publisher reads them, renders each owner's
-- records from the registry as they are now, sends them to the primary
-- by DNS UPDATE (RFC 2136) and deletes the rows only after the primary
-- answered NOERROR: a crash loses nothing, a row published twice is
-- harmless (the owner's records are replaced, not added to).
-- zone: the zone's name (zones.name); owner: A-label, no final dot;
-- at: when it was recorded (unix nanoseconds, the registry's clock);
-- state: 0 to publish, 1 held by the change guard, 2 released by the
-- operator (published without the guard).
CREATE TABLE dns_outbox (
	id    INTEGER PRIMARY KEY AUTOINCREMENT,
	zone  TEXT NOT NULL,
	owner TEXT NOT NULL,
	at    INTEGER NOT NULL,
	state INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX dns_outbox_zone ON dns_outbox (zone, state, id);
-- One publisher acts among several processes on one database: the one
-- holding the lease, renewed every round, taken over when it expires
-- (unix nanoseconds).
CREATE TABLE dns_lease (
	name    TEXT PRIMARY KEY,
	holder  TEXT NOT NULL,
	expires INTEGER NOT NULL
);
