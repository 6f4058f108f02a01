-- The zone export reads a zone's domains in pages in the byte order of
-- their A-labels (Go's string order: the file is the same bytes whatever
-- the database's collation), WHERE alabel COLLATE "C" > cursor ORDER BY
-- alabel COLLATE "C". The UNIQUE index on alabel has the database's
-- collation and serves that only where it is C; this one always does.
CREATE INDEX domains_zone_alabel_c ON domains (zone, alabel COLLATE "C");
