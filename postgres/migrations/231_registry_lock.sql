-- Registry lock (issue 38; docs/lifecycle.md, "Registry lock"). A
-- registrant contact's TOTP secret (RFC 6238), enrolled by the operator
-- (akshara lock enrol) and verified by the registrant's first code
-- (verified > 0: when); last_step is the time step of the last code used,
-- so a code is good once. domain_locks: a domain's lock, set only with a
-- code of its registrant's verified secret: locked > 0 while it holds
-- serverUpdateProhibited, serverDeleteProhibited and
-- serverTransferProhibited (and its subordinate hosts serverUpdateProhibited
-- and serverDeleteProhibited); added are the statuses the lock itself set
-- (an operator's own are not the lock's to remove); relock_at > 0 while an
-- unlock runs: the lifecycle worker locks the domain again then.
CREATE TABLE lock_secrets (
	contact_id TEXT PRIMARY KEY,
	secret     TEXT NOT NULL,
	verified   BIGINT NOT NULL DEFAULT 0,
	last_step  BIGINT NOT NULL DEFAULT 0,
	created    BIGINT NOT NULL
);
CREATE TABLE domain_locks (
	domain_id BIGINT PRIMARY KEY,
	locked    BIGINT NOT NULL DEFAULT 0,
	relock_at BIGINT NOT NULL DEFAULT 0,
	added     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX domain_locks_relock ON domain_locks (relock_at) WHERE relock_at > 0;
