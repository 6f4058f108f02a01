-- GET /v1/domains pages a registrar's domains by a keyset cursor on the
-- domain id (issue 22 item 10): WHERE registrar_id = ? AND id > ? ORDER BY
-- id LIMIT ? reads one page of this index, whatever the registrar holds.
CREATE INDEX domains_registrar_id ON domains (registrar_id, id);
