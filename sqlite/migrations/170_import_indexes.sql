-- Fewer index entries per domain written (issue 26: every index of
-- domains is a B-tree insert per name a bulk import writes).
--
-- domains_registrar (registrar_id) is the same B-tree as
-- domains_registrar_id (registrar_id, id): an SQLite index holds the
-- rowid after its columns, so both held (registrar_id, id). Every query
-- by registrar (the registrar's domains, its page of them, the count of
-- them, the foreign key from domains when a registrar row is deleted)
-- uses domains_registrar_id.
DROP INDEX domains_registrar;
-- The lifecycle worker looks only for times that are set (LifecycleDue:
-- expires > 0, redemption_end > 0, purge_at > 0); 0 is "none", the value
-- of every imported domain without an expiry and of every domain not
-- deleted. Partial indexes keep only the set ones: the worker reads the
-- same rows, and a domain with none of them set has no entry to write.
DROP INDEX domains_expires;
DROP INDEX domains_redemption_end;
DROP INDEX domains_purge_at;
CREATE INDEX domains_expires ON domains (expires) WHERE expires > 0;
CREATE INDEX domains_redemption_end ON domains (redemption_end) WHERE redemption_end > 0;
CREATE INDEX domains_purge_at ON domains (purge_at) WHERE purge_at > 0;
