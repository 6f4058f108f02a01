-- EPP credentials of registrars (issue 11): the EPP password, stored only
-- as a slow salted hash (argon2id, PHC string form), and an optional pinned
-- client-certificate SHA-256 fingerprint (hex, lower case, or empty for none).
CREATE TABLE epp_credentials (
	registrar_id BIGINT PRIMARY KEY REFERENCES registrars (id),
	pw_hash      TEXT NOT NULL,
	cert_sha256  TEXT NOT NULL,
	updated      BIGINT NOT NULL
);
