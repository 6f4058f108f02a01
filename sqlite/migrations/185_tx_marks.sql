-- One command, one transaction (issue 33; internal/sqlstore/atomic.go):
-- every command of a registrar or of the operator writes a mark in its
-- transaction: a token that begins with the time it was made (16 hex
-- digits of nanoseconds) and ends with 64 random bits, so that marks are
-- appended at the end of the index. When the database fails at the
-- command's COMMIT and may have committed it, the store reads the mark
-- back: there, the command took effect and is not run again; absent, it
-- did not, and it runs again. The store deletes marks older than ten
-- minutes as it goes (a fault at COMMIT is resolved within seconds).
CREATE TABLE tx_marks (
	token TEXT PRIMARY KEY
) WITHOUT ROWID;
