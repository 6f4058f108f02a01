-- Contacts (issue 24, RFC 5733) and the contacts of domains (RFC 5731).
-- handle is the registrar's id of the contact (clIDType, ASCII, compared
-- exactly). data is the contact's postal infos, telephone numbers, email
-- and disclose preference as JSON (registry.ContactData): its lines are
-- kept byte for byte as the registrar gave them. auth_hash is the
-- argon2id hash of its authInfo. statuses: the client statuses,
-- space-separated. version counts the updates (no lost update).
CREATE TABLE contacts (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	handle       TEXT NOT NULL UNIQUE,
	registrar_id INTEGER NOT NULL REFERENCES registrars (id),
	data         TEXT NOT NULL,
	auth_hash    TEXT NOT NULL,
	statuses     TEXT NOT NULL,
	created      INTEGER NOT NULL,
	updated      INTEGER NOT NULL,
	version      INTEGER NOT NULL DEFAULT 0
);
-- role: registrant, admin, tech or billing.
CREATE TABLE domain_contacts (
	domain_id  INTEGER NOT NULL REFERENCES domains (id),
	contact_id INTEGER NOT NULL REFERENCES contacts (id),
	role       TEXT NOT NULL,
	PRIMARY KEY (domain_id, role, contact_id)
);
CREATE INDEX domain_contacts_contact ON domain_contacts (contact_id);
