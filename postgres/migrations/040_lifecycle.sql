-- The domain lifecycle (issue 23; docs/lifecycle.md). Times are Unix
-- nanoseconds, 0 for none. expires: the expiry date (0: none recorded,
-- such as a domain imported without one); statuses: the EPP statuses set
-- on the domain (client*/server* statuses, pendingDelete,
-- redemptionPeriod, pendingRestore, ...), space-separated, "" for ok;
-- redemption_end: when the redemption period of a deleted domain ends
-- (0 once it has ended or while none runs); purge_at: when a deleted
-- domain is purged and its conflict set freed (0: not deleted); renewed
-- and autorenewed: the last explicit and automatic renewals (the grace
-- periods run from them); updated: the last change; rev: increases with
-- every change, so that a change decided on what was read applies only
-- if nothing changed the domain in between (several servers, one
-- database).
ALTER TABLE domains ADD COLUMN expires BIGINT NOT NULL DEFAULT 0;
ALTER TABLE domains ADD COLUMN statuses TEXT NOT NULL DEFAULT '';
ALTER TABLE domains ADD COLUMN redemption_end BIGINT NOT NULL DEFAULT 0;
ALTER TABLE domains ADD COLUMN purge_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE domains ADD COLUMN renewed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE domains ADD COLUMN autorenewed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE domains ADD COLUMN updated BIGINT NOT NULL DEFAULT 0;
ALTER TABLE domains ADD COLUMN rev BIGINT NOT NULL DEFAULT 0;
-- what the lifecycle worker looks for: domains expired, redemptions
-- ended, purges due (each a range scan of its own)
CREATE INDEX domains_expires ON domains (expires);
CREATE INDEX domains_redemption_end ON domains (redemption_end);
CREATE INDEX domains_purge_at ON domains (purge_at);
-- (the audit log's channel and EPP transaction ids are migration 050's)
