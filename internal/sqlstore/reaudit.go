package sqlstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/internal/spool"
	"github.com/akshara-idn/akshara/registry"
)

var _ registry.Reauditor = (*Store)(nil)

// scanZone lists a zone's domains and, after each, the rows of its
// stored conflict set and exemptions (kind 1: blocks, 2: exempt_sets, 3:
// the label of a domain it is exempted with), in one query ordered by
// domain: the database merges four scans in domain order (the zone
// compared as an expression, so that no index on the zone is used: it
// would make the database sort the whole zone) and the client holds one
// domain at a time. Each scan reads the rows of every zone: a zone with no
// domain is not scanned.
//
// A zone of a variant TLD family is scanned with the family (ZONES: its
// members; the conflict sets under the family's key): the re-audit judges
// the family as one relation, and each domain says its zone.
const scanZone = `SELECT d.id, 0, d.label, d.lang, r.name, d.data_version, d.legacy, d.zone FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.zone || '' IN (ZONES)
	UNION ALL SELECT domain_id, 1, label, '', '', '', '', '' FROM blocks WHERE zone || '' = ?
	UNION ALL SELECT domain_id, 2, label, '', '', '', '', '' FROM exempt_sets WHERE zone || '' = ?
	UNION ALL SELECT e.domain_id, 3, o.label, CAST(e.other_id AS TEXT), '', '', '', o.zone FROM exemptions e JOIN domains d ON d.id = e.domain_id JOIN domains o ON o.id = e.other_id WHERE d.zone || '' IN (ZONES) AND o.zone || '' IN (ZONES)
	ORDER BY 1, 2`

// scanQuery is scanZone for the zones of zone's family (or zone alone)
// and its arguments.
func (s *Store) scanQuery(zone string) (string, []any) {
	zones := s.members(zone)
	in := []any{}
	for _, z := range zones {
		in = append(in, z)
	}
	args := append(append(append(append([]any{}, in...), s.key(zone), s.key(zone)), in...), in...)
	return strings.ReplaceAll(scanZone, "ZONES", marks(len(zones))), args
}

// ScanZone implements registry.Reauditor.
func (s *Store) ScanZone(ctx context.Context, zone string, restart func(), each func(*registry.Domain) error) error {
	first := true
	err := s.tx(ctx, func(tx *sql.Tx) error { // one snapshot
		if !first {
			restart()
		}
		first = false
		return s.scanZone(ctx, tx, zone, nil, each)
	})
	return internal("listing the domains of "+zone, err)
}

// What a scan keeps of a domain's stored rows for the apply that follows
// it in the same transaction is written to a spool (keptRows), in ID
// order: its ID (the difference from the last), the hash of its conflict
// set rows (storedHash) and its legacy codes.

// storedHash is the hash of a domain's rows in blocks (held), exempt_sets
// (whole) and exemptions (the IDs of others), each sorted.
func storedHash(seed maphash.Seed, held, whole []string, others []int64) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var n [binary.MaxVarintLen64]byte
	for _, part := range [][]string{held, whole} {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(part)))])
		for _, l := range part {
			h.Write(n[:binary.PutUvarint(n[:], uint64(len(l)))])
			h.WriteString(l)
		}
	}
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(others)))])
	for _, o := range others {
		h.Write(n[:binary.PutVarint(n[:], o)])
	}
	return h.Sum64()
}

// scanZone is ScanZone's scan in tx; with keep, what the apply needs of
// each domain's stored rows is appended to *keep.
func (s *Store) scanZone(ctx context.Context, tx *sql.Tx, zone string, keep *keptRows, each func(*registry.Domain) error) error {
	// the scan reads every zone's rows: not for a zone with none
	query, args := s.scanQuery(zone)
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM (SELECT 1 FROM domains WHERE zone IN (`+marks(len(s.members(zone)))+`) LIMIT 1) x`), args[:len(s.members(zone))]...).Scan(&n); err != nil || n == 0 {
		return err
	}
	rows, err := tx.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var d *registry.Domain
	var held, whole []string
	var others []int64
	flush := func() error {
		if d == nil {
			return nil
		}
		if keep != nil {
			slices.Sort(held)
			slices.Sort(whole)
			slices.Sort(others)
			keep.put(d.ID, storedHash(keep.seed, held, whole, others), strings.Join(d.Legacy, " "))
			if err := keep.sp.Err(); err != nil {
				return err
			}
		}
		// an exempted domain's whole set is in exempt_sets; an
		// ordinary one holds its whole set
		d.Blocks = held
		if d.Exempted {
			d.Blocks = whole
		}
		slices.Sort(d.Blocks)
		err := each(d)
		d, held, whole, others = nil, []string{}, nil, nil
		return err
	}
	for rows.Next() {
		var id int64
		var kind int
		var label, lang, registrar, version, legacy, dzone string
		if err := rows.Scan(&id, &kind, &label, &lang, &registrar, &version, &legacy, &dzone); err != nil {
			return err
		}
		if kind == 0 {
			if err := flush(); err != nil {
				return err
			}
			d = &registry.Domain{ID: id, Zone: dzone, Label: label, Name: label + "." + dzone, Lang: lang, Registrar: registrar,
				DataVersion: version, Legacy: strings.Fields(legacy)}
			held = []string{}
			continue
		}
		if d == nil || d.ID != id {
			continue // not a domain of the zone
		}
		switch kind {
		case 1:
			held = append(held, label)
		case 2:
			whole = append(whole, label)
		case 3:
			if o, err := strconv.ParseInt(lang, 10, 64); err == nil {
				others = append(others, o)
			}
			d.Exempted = true
			d.ExemptWith = append(d.ExemptWith, label+"."+dzone)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

// keptRows is what the apply's scan keeps of the stored rows, in ID
// order, in a spool: in memory up to ReauditKeptInMemory bytes, in a temporary
// file beyond (about 11 bytes a domain), so that the apply's memory does
// not grow with the zone.
type keptRows struct {
	seed            maphash.Seed
	sp              *spool.Spool
	n               int
	firstID, lastID int64
}

// ReauditKeptInMemory is how many bytes of kept rows stay in memory (the tests
// make it small, to run the spilled path).
var ReauditKeptInMemory = 16 << 20

func (k *keptRows) put(id int64, hash uint64, legacy string) {
	if k.n == 0 {
		k.firstID = id
	}
	k.sp.PutVarint(id - k.lastID)
	k.lastID = id
	k.sp.PutUint64(hash)
	k.sp.PutString(legacy)
	k.n++
}

// keptReader reads the kept rows back, in ID order.
type keptReader struct {
	r      *spool.Reader
	lastID int64
}

func (k *keptReader) next() (id int64, hash uint64, legacy string, err error) {
	d, err := k.r.Varint()
	if err != nil {
		return 0, 0, "", err
	}
	k.lastID += d
	if hash, err = k.r.Uint64(); err != nil {
		return 0, 0, "", err
	}
	legacy, err = k.r.String()
	return k.lastID, hash, legacy, err
}

// ReauditDeleteEvery is how many domains' rows one DELETE of
// ApplyReaudit removes from each table (the tests make it small, to run
// several). PostgreSQL reads exemptions and exempt_sets (small beside
// blocks) whole for each such statement, whatever the number of IDs: at
// 10 M domains under a change of 2 M sets, 200 IDs a statement took over
// half an hour of such scans.
var ReauditDeleteEvery = 5000

// ReauditVersionEvery is how many IDs of domains one statement of
// ApplyReaudit sets the data version of (the tests make it small, to run
// several).
var ReauditVersionEvery int64 = 50000

// copyEvery is how many rows ApplyReaudit sends in one COPY.
const copyEvery = 10000

// ApplyReaudit implements registry.Reauditor. One transaction takes,
// before it reads anything, the locks every write to the conflict sets
// takes its turn on (the settings row, as exempted creates, imports and
// the start-up recomputation do; on PostgreSQL also a lock on domains
// and blocks that holds creates and deletes off, ImportLock; SQLite's
// writers take turns anyway), scans the zone (each), and then writes the
// rows (rows) of the domains whose stored rows differ from them only:
// a domain's blocks, exempt_sets and exemptions rows are replaced only
// if they changed, and no domain can come or go between the scan and the
// writes.
func (s *Store) ApplyReaudit(ctx context.Context, zone, relation, version string, restart func(), each func(*registry.Domain) error, rows func(func(*registry.ReauditRow) error) error) error {
	first := true
	return internal("applying the re-audit of "+zone, s.do(ctx, func() error {
		if !first {
			restart()
		}
		first = false
		return s.applyReaudit(ctx, zone, relation, version, each, rows)
	}))
}

func (s *Store) applyReaudit(ctx context.Context, zone, relation, version string, each func(*registry.Domain) error, rows func(func(*registry.ReauditRow) error) error) error {
	return s.connTx(ctx, func(conn *sql.Conn, tx *sql.Tx) error {
		if err := s.execAll(ctx, tx, s.d.ImportSetup, s.d.BulkBegin); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE settings SET value = value WHERE name = ?`), relationSetting); err != nil {
			return err // takes its turn with exempted creates and imports
		}
		if s.d.ImportLock != "" {
			if _, err := tx.ExecContext(ctx, s.d.ImportLock); err != nil {
				return err // and with every create and delete
			}
		}
		keep := &keptRows{seed: maphash.MakeSeed(), sp: spool.New(ReauditKeptInMemory)}
		defer keep.sp.Close()
		if err := s.scanZone(ctx, tx, zone, keep, each); err != nil {
			return err
		}
		if keep.n == 0 {
			return nil
		}
		kept, err := keep.sp.Reader()
		if err != nil {
			return err
		}
		kr := &keptReader{r: kept}
		// first the rows of the changed domains go (deleted ReauditDeleteEvery at
		// a time as they are found), then the new ones come: a label may
		// pass from one domain to another
		changed := make([]uint64, (keep.n+63)/64) // by position in the scan
		var gone []any                            // the IDs of changed domains not yet deleted
		del := func() error {
			if len(gone) == 0 {
				return nil
			}
			for _, q := range []string{`DELETE FROM exemptions WHERE domain_id IN (%s)`, `DELETE FROM exempt_sets WHERE domain_id IN (%s)`, `DELETE FROM blocks WHERE domain_id IN (%s)`} {
				if _, err := tx.ExecContext(ctx, s.q(fmt.Sprintf(q, marks(len(gone)))), gone...); err != nil {
					return err
				}
			}
			gone = gone[:0]
			return nil
		}
		domains, exempted, k, nchanged := 0, 0, 0, 0
		err = rows(func(r *registry.ReauditRow) error {
			if k >= keep.n {
				return fmt.Errorf("re-audit row %d: domain %d is not the scanned one", k, r.ID)
			}
			id, hash, legacy, err := kr.next()
			if err != nil {
				return err
			}
			if id != r.ID {
				return fmt.Errorf("re-audit row %d: domain %d is not the scanned one", k, r.ID)
			}
			domains++
			if len(r.ExemptWith) > 0 {
				exempted++
			}
			if err := s.enqueueTx(ctx, tx, r.Notices); err != nil { // once: this pass runs once (change poll)
				return err
			}
			if storedHash(keep.seed, r.Held, r.Set, r.ExemptWith) != hash {
				changed[k/64] |= 1 << (k % 64)
				nchanged++
				if gone = append(gone, r.ID); len(gone) >= ReauditDeleteEvery {
					if err := del(); err != nil {
						return err
					}
				}
			}
			k++
			if l := strings.Join(r.Legacy, " "); l != legacy {
				if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET legacy = ? WHERE id = ?`), l, r.ID); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if k != keep.n {
			return fmt.Errorf("re-audit: %d rows for %d scanned domains", k, keep.n)
		}
		if err := del(); err != nil {
			return err
		}
		// the version, by ranges of IDs (the zone is not compared by its
		// index, as in the scan): one statement for the whole zone made
		// SQLite keep a statement journal of every page of the zone's
		// domains, in memory (temp_store) with the import's settings
		for lo := keep.firstID; ; lo += ReauditVersionEvery {
			from, to := lo, lo+ReauditVersionEvery-1
			if lo == keep.firstID {
				from = math.MinInt64
			}
			last := to >= keep.lastID
			if last {
				to = math.MaxInt64
			}
			for _, z := range s.members(zone) {
				if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET data_version = ? WHERE id >= ? AND id <= ? AND zone || '' = ? AND data_version <> ?`), version, from, to, z, version); err != nil {
					return err
				}
			}
			if last {
				break
			}
		}
		if nchanged > 0 {
			if err := s.insertReaudit(ctx, conn, tx, zone, changed, rows); err != nil {
				return err
			}
		}
		if relation != "" {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`), relationSetting, relation); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, '', 'reaudit', ?, ?)`),
			time.Now().UnixNano(), zone, fmt.Sprintf("ok %d domains, %d exempted", domains, exempted))
		return err
	})
}

// insertReaudit writes the rows of the changed domains (changed: a bit
// for each domain, by its position in the scan's ID order).
func (s *Store) insertReaudit(ctx context.Context, conn *sql.Conn, tx *sql.Tx, zone string, changed []uint64, rows func(func(*registry.ReauditRow) error) error) error {
	var blocks rowSink = s.inserter(ctx, tx, `INSERT INTO blocks (zone, label, domain_id) VALUES `, ``, 3, nil)
	var copied *copier
	if s.d.CopyFrom != nil {
		copied = &copier{s: s, ctx: ctx, conn: conn, table: "blocks", cols: []string{"zone", "label", "domain_id"}}
		blocks = copied
	}
	defer blocks.close()
	sets := s.inserter(ctx, tx, `INSERT INTO exempt_sets (zone, label, domain_id) VALUES `, `ON CONFLICT DO NOTHING`, 3, nil)
	defer sets.close()
	pairs := s.inserter(ctx, tx, `INSERT INTO exemptions (domain_id, other_id) VALUES `, `ON CONFLICT DO NOTHING`, 2, nil)
	defer pairs.close()
	k := 0
	err := rows(func(r *registry.ReauditRow) error {
		k++
		if k > 64*len(changed) || changed[(k-1)/64]&(1<<((k-1)%64)) == 0 {
			return nil
		}
		for _, l := range r.Held {
			if err := blocks.add(s.key(zone), l, r.ID); err != nil {
				return err
			}
		}
		if copied != nil && len(copied.rows) >= copyEvery {
			if err := copied.flush(); err != nil {
				return err
			}
		}
		if len(r.ExemptWith) > 0 {
			for _, l := range r.Set {
				if err := sets.add(s.key(zone), l, r.ID); err != nil {
					return err
				}
			}
			for _, o := range r.ExemptWith {
				if err := pairs.add(r.ID, o); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, w := range []rowSink{blocks, sets, pairs} {
		if err := w.flush(); err != nil {
			return err
		}
	}
	return nil
}
