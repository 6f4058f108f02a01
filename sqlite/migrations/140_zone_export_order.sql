-- The zone export reads a zone's domains in pages in the byte order of
-- their A-labels (WHERE zone = ? AND alabel > cursor ORDER BY alabel):
-- by this index it reads only the zone's, from the cursor on.
CREATE INDEX domains_zone_alabel ON domains (zone, alabel);
