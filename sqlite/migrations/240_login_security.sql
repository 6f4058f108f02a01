-- Sessions and credentials (issue 38; docs/epp.md "Login security" and
-- "Address allow-lists"):
--
-- An EPP password's age and expiry (RFC 8807 password events): when it was
-- last set (the registry's clock, Unix ns; the row's last change for the
-- rows of before this migration), when it expires (NULL: never; the
-- service computes it, from the registrar's lifetime or the registry's),
-- and the registrar's own lifetime in seconds (NULL: the registry's, the
-- epp_settings row pw_lifetime; 0: never expires).
ALTER TABLE epp_credentials ADD COLUMN pw_changed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE epp_credentials ADD COLUMN pw_expires INTEGER;
ALTER TABLE epp_credentials ADD COLUMN pw_lifetime INTEGER;
UPDATE epp_credentials SET pw_changed = updated;
-- Settings of the registry's login security, one row a name (pw_lifetime:
-- the registry's password lifetime in seconds; none or 0: passwords do
-- not expire).
CREATE TABLE epp_settings (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
-- A registrar's address allow-list for EPP logins and the HTTP API: the
-- CIDR prefixes, separated by spaces; '' allows every address.
ALTER TABLE registrars ADD COLUMN allow_from TEXT NOT NULL DEFAULT '';
