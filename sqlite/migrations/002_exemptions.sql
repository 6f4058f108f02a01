-- Exemptions: domains that conflict with each other and are all kept,
-- because they were registered before the conflict relation that makes
-- them conflict (brought in by the start-up recomputation or by a bulk
-- import). A pair is stored in both directions.
CREATE TABLE exemptions (
	domain_id INTEGER NOT NULL REFERENCES domains (id),
	other_id  INTEGER NOT NULL REFERENCES domains (id),
	PRIMARY KEY (domain_id, other_id)
);
CREATE INDEX exemptions_other ON exemptions (other_id);
-- The whole conflict set of an exempted domain: in blocks it holds only
-- the labels that were free: the others are held by the domains it is
-- exempted with and come to it when they are deleted.
CREATE TABLE exempt_sets (
	zone      TEXT NOT NULL,
	label     TEXT NOT NULL,
	domain_id INTEGER NOT NULL REFERENCES domains (id),
	PRIMARY KEY (domain_id, label)
);
CREATE INDEX exempt_sets_label ON exempt_sets (zone, label);
-- Settings of the registry's data, such as the version of the conflict
-- relation the stored conflict sets were computed with.
CREATE TABLE settings (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
