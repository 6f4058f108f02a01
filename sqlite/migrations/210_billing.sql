-- Registrar accounts and billing (issue 36; registry/billing.go,
-- internal/sqlstore/billing.go, docs/billing.md). Money is in paise
-- (integers), the currency INR.
--
-- accounts: one prepaid account per registrar (created with its first
-- entry). balance is the sum of the registrar's ledger entries (akshara
-- account reconcile proves it); a charge may take it down to
-- -credit_limit and no further (the conditional UPDATE of a charge is the
-- lock two racing commands of one registrar serialize on). low_balance is
-- the threshold below which the registrar is told by a poll message.
-- gstin and state are the registrar's, for its GST tax invoices.
CREATE TABLE accounts (
	registrar_id INTEGER PRIMARY KEY REFERENCES registrars (id),
	balance      BIGINT NOT NULL DEFAULT 0,
	credit_limit BIGINT NOT NULL DEFAULT 0,
	low_balance  BIGINT NOT NULL DEFAULT 0,
	gstin        TEXT NOT NULL DEFAULT '',
	state        TEXT NOT NULL DEFAULT '',
	legal_name   TEXT NOT NULL DEFAULT ''
);
-- The ledger: append-only. amount is the signed change of the balance (a
-- credit or refund positive, a debit negative), balance the balance after
-- it; command, zone, name, domain_id and months say what a debit paid
-- for, price the price list's amount, audit_id the command's audit
-- record, refund_of the debit a refund gives back (once: the unique
-- index). No foreign key to domains: a purge keeps the entries.
CREATE TABLE ledger (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	registrar_id INTEGER NOT NULL REFERENCES registrars (id),
	at           BIGINT NOT NULL,
	kind         TEXT NOT NULL,
	command      TEXT NOT NULL DEFAULT '',
	zone         TEXT NOT NULL DEFAULT '',
	name         TEXT NOT NULL DEFAULT '',
	domain_id    BIGINT NOT NULL DEFAULT 0,
	months       INTEGER NOT NULL DEFAULT 0,
	price        BIGINT NOT NULL DEFAULT 0,
	amount       BIGINT NOT NULL,
	balance      BIGINT NOT NULL,
	audit_id     BIGINT,
	refund_of    BIGINT,
	note         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX ledger_registrar ON ledger (registrar_id, id);
CREATE INDEX ledger_registrar_at ON ledger (registrar_id, at);
CREATE INDEX ledger_zone_at ON ledger (zone, at);
CREATE INDEX ledger_domain ON ledger (domain_id, id);
CREATE UNIQUE INDEX ledger_refund ON ledger (refund_of);
-- The price lists: per zone (or a family's first zone, for the family),
-- command (create, renew, autorenew, transfer, restore) and period in
-- years, for every label or for one (a premium name), in force from
-- valid_from until a later row of the same key.
CREATE TABLE prices (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	zone       TEXT NOT NULL,
	command    TEXT NOT NULL,
	years      INTEGER NOT NULL,
	label      TEXT NOT NULL DEFAULT '',
	amount     BIGINT NOT NULL,
	valid_from BIGINT NOT NULL,
	created    BIGINT NOT NULL,
	UNIQUE (zone, command, years, label, valid_from)
);
-- The registry's own billing settings (its GSTIN, state, name, the GST
-- rate), set by akshara billing set.
CREATE TABLE billing_settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
