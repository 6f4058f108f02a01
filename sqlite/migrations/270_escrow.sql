-- Registry data escrow (docs/escrow.md): every deposit written, the last
-- one the cursor a DIFF deposit starts from.
CREATE TABLE escrow_deposits (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	kind      TEXT NOT NULL,   -- FULL or DIFF
	watermark BIGINT NOT NULL, -- unix nanoseconds
	seq       BIGINT NOT NULL,
	file      TEXT NOT NULL
);
