-- Variant groups (issue 38; docs/variants.md, "Same entity"): under a zone's
-- `same-entity` policy a blocked variant may be registered by the holder's
-- registrant, through the holder's registrar, as a member of the holder's
-- variant group. Each member holds its own name (the unique index on
-- domains (zone, label)); the group holds the conflict set: the blocks rows
-- name one member, the group's carrier (a live member if the group has one),
-- and pass to another member when it is purged, so the unique index on
-- blocks (zone, label) still gives a label of the set to one group and the
-- purge of the last member frees it. rev is the group's lock: a command
-- that decides on the group's members (a transfer request, a member's
-- delete, purge or join) updates it first, so two such commands take turns.
CREATE TABLE variant_groups (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	zone    TEXT NOT NULL,
	created INTEGER NOT NULL,
	rev     INTEGER NOT NULL DEFAULT 0
);
ALTER TABLE domains ADD COLUMN variant_group INTEGER REFERENCES variant_groups (id);
CREATE INDEX domains_variant_group ON domains (variant_group) WHERE variant_group IS NOT NULL;
