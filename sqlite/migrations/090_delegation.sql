-- Delegation (issue 24): host objects (RFC 5732) with their addresses,
-- the name servers of domains, and their DS records (RFC 5910).
-- hosts.name is the host's name in A-label form, lower case, no final dot.
-- domain_id is the superordinate domain of a host inside a zone this
-- registry serves (NULL for a host outside); only such a host has
-- addresses (glue). statuses: the client statuses, space-separated.
-- version counts the updates: an update read at one version is written
-- only if the host is still at it (no lost update).
CREATE TABLE hosts (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	name         TEXT NOT NULL UNIQUE,
	registrar_id INTEGER NOT NULL REFERENCES registrars (id),
	domain_id    INTEGER REFERENCES domains (id),
	statuses     TEXT NOT NULL,
	created      INTEGER NOT NULL,
	updated      INTEGER NOT NULL,
	version      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX hosts_domain ON hosts (domain_id);
CREATE TABLE host_addrs (
	host_id INTEGER NOT NULL REFERENCES hosts (id),
	addr    TEXT NOT NULL,
	PRIMARY KEY (host_id, addr)
);
CREATE TABLE domain_hosts (
	domain_id INTEGER NOT NULL REFERENCES domains (id),
	host_id   INTEGER NOT NULL REFERENCES hosts (id),
	PRIMARY KEY (domain_id, host_id)
);
CREATE INDEX domain_hosts_host ON domain_hosts (host_id);
CREATE TABLE ds_records (
	domain_id   INTEGER NOT NULL REFERENCES domains (id),
	key_tag     INTEGER NOT NULL,
	alg         INTEGER NOT NULL,
	digest_type INTEGER NOT NULL,
	digest      TEXT NOT NULL,
	PRIMARY KEY (domain_id, key_tag, alg, digest_type, digest)
);
