-- RDAP (issue 34 item 13; docs/rdap.md): a registrar's abuse contact, as
-- the registry operator records it (akshara registrar abuse), published
-- in the registrar entity of every RDAP answer; '' is none.
ALTER TABLE registrars ADD COLUMN abuse_email TEXT NOT NULL DEFAULT '';
ALTER TABLE registrars ADD COLUMN abuse_phone TEXT NOT NULL DEFAULT '';
-- The domain search (domains?name=PREFIX*.ZONE) reads a range of labels
-- in byte order, WHERE zone = ? AND label COLLATE "C" >= ? AND label
-- COLLATE "C" < ?: the unique index on (zone, label) has the database's
-- collation and serves that range only where it is C; this one always
-- does (as domains_zone_alabel_c, migration 140, does for an A-label
-- prefix; TestSearchQueryPlans).
CREATE INDEX domains_zone_label_c ON domains (zone, label COLLATE "C");
