-- The change log of the read cache (internal/sqlstore/readcache.go): one
-- row per label of a zone whose answer a check may have changed (a block
-- or a reserved name added, removed or moved) and per domain whose row a
-- check shows (registrar, statuses, redemption, data version, exemptions).
-- It is written by triggers, so every write path, of this process or of
-- another on the same file, is logged without the Go code of the path
-- knowing of it; a cache reads the rows after the seq it last saw and
-- drops only the answers those rows touch. SQLite has one writer at a
-- time and AUTOINCREMENT never reuses a number, so seq is the order of
-- the commits: a reader that reads seq > n after a commit it has seen
-- misses nothing. A row with label NULL and domain_id NULL means "every
-- label of the zone" (a bulk write that logs itself once).
CREATE TABLE cache_changes (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	zone      TEXT,
	label     TEXT,
	domain_id INTEGER
);
-- A bulk writer (import, re-audit apply) puts a row here inside its
-- transaction, logs its zone once, and deletes the row before it commits:
-- while the row exists the triggers below log nothing (one writer at a
-- time: no other transaction ever sees the row).
CREATE TABLE cache_bulk (
	zone TEXT PRIMARY KEY
);
CREATE TRIGGER cache_blocks_ins AFTER INSERT ON blocks WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, label) VALUES (NEW.zone, NEW.label);
END;
CREATE TRIGGER cache_blocks_del AFTER DELETE ON blocks WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, label) VALUES (OLD.zone, OLD.label);
END;
CREATE TRIGGER cache_blocks_upd AFTER UPDATE ON blocks WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, label) VALUES (OLD.zone, OLD.label);
	INSERT INTO cache_changes (zone, label) VALUES (NEW.zone, NEW.label);
END;
CREATE TRIGGER cache_reserved_ins AFTER INSERT ON reserved WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, label) VALUES (NEW.zone, NEW.label);
END;
CREATE TRIGGER cache_reserved_del AFTER DELETE ON reserved WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, label) VALUES (OLD.zone, OLD.label);
END;
CREATE TRIGGER cache_reserved_upd AFTER UPDATE ON reserved WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, label) VALUES (OLD.zone, OLD.label);
	INSERT INTO cache_changes (zone, label) VALUES (NEW.zone, NEW.label);
END;
-- the columns a check's answer shows of its blocker (domainColumns)
CREATE TRIGGER cache_domains_upd AFTER UPDATE OF zone, label, alabel, lang, registrar_id, created, data_version, legacy, statuses, purge_at, redemption_end ON domains
	WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, domain_id) VALUES (NEW.zone, NEW.id);
END;
CREATE TRIGGER cache_domains_del AFTER DELETE ON domains WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (zone, domain_id) VALUES (OLD.zone, OLD.id);
END;
CREATE TRIGGER cache_exemptions_ins AFTER INSERT ON exemptions WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (domain_id) VALUES (NEW.domain_id);
END;
CREATE TRIGGER cache_exemptions_del AFTER DELETE ON exemptions WHEN NOT EXISTS (SELECT 1 FROM cache_bulk) BEGIN
	INSERT INTO cache_changes (domain_id) VALUES (OLD.domain_id);
END;
-- registrars: a check shows the blocker's registrar by name
CREATE TRIGGER cache_registrars_upd AFTER UPDATE OF name ON registrars BEGIN
	INSERT INTO cache_changes (zone) VALUES (NULL);
END;
-- The log is kept short: every 4096th row drops those 65,536 rows older.
-- A cache that has fallen further behind sees the gap (its next seq is
-- gone) and drops everything.
CREATE TRIGGER cache_changes_prune AFTER INSERT ON cache_changes WHEN NEW.seq % 4096 = 0 BEGIN
	DELETE FROM cache_changes WHERE seq <= NEW.seq - 65536;
END;
