-- The policy data version (akshara.DataVersion) each domain was judged
-- under, and for a name kept by an import although the policy refuses it
-- (akshara import -allow-invalid), the rule codes it breaks.
ALTER TABLE domains ADD COLUMN data_version TEXT NOT NULL DEFAULT '';
ALTER TABLE domains ADD COLUMN legacy TEXT NOT NULL DEFAULT '';
-- Resumable imports: the last input line an import committed, per input
-- (the SHA-256 of the file) and zone, written in the batch's transaction.
CREATE TABLE import_checkpoints (
	source  TEXT NOT NULL,
	zone    TEXT NOT NULL,
	line    BIGINT NOT NULL,
	done    INTEGER NOT NULL,
	updated BIGINT NOT NULL,
	PRIMARY KEY (source, zone)
);
