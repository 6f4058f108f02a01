-- Maintenance windows (issue 38; RFC 9167; docs/epp.md "Maintenance"):
-- the operator's (akshara maintenance), each told to every registrar by a
-- poll message when it is created, changed or cancelled, and read with
-- <maint:info>. data is the window as JSON (registry.Maintenance);
-- cancelled > 0: when it was cancelled (kept, so its id is not reused).
CREATE TABLE maintenance (
	id        TEXT PRIMARY KEY,
	data      TEXT NOT NULL,
	created   INTEGER NOT NULL,
	cancelled INTEGER NOT NULL DEFAULT 0
);
