-- One command, one transaction (issue 33; internal/sqlstore/atomic.go):
-- every command of a registrar or of the operator writes a mark, a random
-- token, in its transaction. When the database fails at the command's
-- COMMIT and may have committed it, the store reads the mark back: there,
-- the command took effect and is not run again; absent, it did not, and
-- it runs again. The lifecycle worker deletes marks older than a day.
CREATE TABLE tx_marks (
	token TEXT PRIMARY KEY,
	at BIGINT NOT NULL
);
CREATE INDEX tx_marks_at ON tx_marks (at);
