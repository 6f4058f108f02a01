-- Child DS automation (issue 37; registry/domain_cds.go, docs/dnssec.md):
-- a domain's CDS request being accepted. fingerprint names the request
-- (its DS records, or "delete"); first and last are when the scans first
-- and last saw it, seen how many did. The row goes when the request is
-- applied, withdrawn, or a scan finds a problem; name guards against a
-- purged domain's ID given again.
CREATE TABLE cds_state (
	domain_id   INTEGER PRIMARY KEY,
	name        TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	first_seen  INTEGER NOT NULL,
	last_seen   INTEGER NOT NULL,
	seen        INTEGER NOT NULL
);
