-- RDAP (issue 34 item 13; docs/rdap.md): a registrar's abuse contact, as
-- the registry operator records it (akshara registrar abuse), published
-- in the registrar entity of every RDAP answer; '' is none.
--
-- The domain search (domains?name=PREFIX*.ZONE) reads the ranges of two
-- indexes that exist: domains_zone_label (zone, label) for a U-label
-- prefix and domains_zone_alabel (zone, alabel) for an A-label one, both
-- in byte order (SQLite's BINARY collation; TestSearchQueryPlans).
ALTER TABLE registrars ADD COLUMN abuse_email TEXT NOT NULL DEFAULT '';
ALTER TABLE registrars ADD COLUMN abuse_phone TEXT NOT NULL DEFAULT '';
