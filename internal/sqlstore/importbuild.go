package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// A built import (registry.ImportBuilder, Dialect.ImportBuild): the whole
// import, decided by the registry, written in one transaction into a
// zone family that holds nothing. The indexes of domains and blocks
// other than their primary keys are dropped first and created again
// after the rows (each a sort and an append, rather than a random
// B-tree insert per row); domains are written in the file's order
// (appended to the table), blocks in label order (appended to its
// primary key). The transaction holds SQLite's write lock throughout:
// nothing else writes meanwhile, and readers see the file as it was
// until it commits.

var _ registry.ImportBuilder = (*Store)(nil)

// ImportBuildable implements registry.ImportBuilder.
func (s *Store) ImportBuildable(ctx context.Context, zone string) (bool, error) {
	if s.d.ImportBuild == nil || s.d.ImportUnchecked == nil {
		return false, nil
	}
	empty, err := s.familyEmpty(ctx, s.db, zone)
	return empty, internal("reading the zone's domains", err)
}

// familyEmpty reports whether zone's family holds no domain (of any
// state), conflict set or exempted set.
func (s *Store) familyEmpty(ctx context.Context, q queryer, zone string) (bool, error) {
	members := s.members(zone)
	args := []any{}
	for _, m := range members {
		args = append(args, m)
	}
	key := s.key(zone)
	args = append(args, key, key)
	n := -1
	err := queryEach(ctx, q, s.q(`SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM domains WHERE zone IN (`+marks(len(members))+`) LIMIT 1) d)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM blocks WHERE zone = ? LIMIT 1) b)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM exempt_sets WHERE zone = ? LIMIT 1) e)`), args, func(r *sql.Rows) error { return r.Scan(&n) })
	return n == 0, err
}

// ImportBuild implements registry.ImportBuilder. A transient fault runs
// the transaction again, and a fault at COMMIT is resolved by the
// checkpoint's stamp, as for a batch (importTx).
func (s *Store) ImportBuild(ctx context.Context, b *registry.ImportBuild) error {
	err := s.do(ctx, func() error {
		stamp := time.Now().UnixNano()
		err := s.connTxMode(ctx, false, true, func(conn *sql.Conn, tx *sql.Tx) error {
			return s.importBuild(ctx, tx, b, stamp)
		})
		return s.importCommitted(ctx, err, b.Source, b.Zone, stamp)
	})
	if errors.Is(err, registry.ErrImportNotEmpty) {
		return err
	}
	return internal("building the import", err)
}

type builtIndex struct{ name, create string }

func (s *Store) importBuild(ctx context.Context, tx *sql.Tx, b *registry.ImportBuild, stamp int64) error {
	bd, u := s.d.ImportBuild, s.d.ImportUnchecked
	setup := bd.Setup
	if bd.SetupLarge != nil && s.d.ImportLargeFile > 0 && b.FileBytes >= s.d.ImportLargeFile {
		setup = bd.SetupLarge
	}
	if err := s.execAll(ctx, tx, setup, s.d.BulkBegin); err != nil {
		return err
	}
	empty, err := s.familyEmpty(ctx, tx, b.Zone)
	if err != nil {
		return err
	}
	if !empty {
		return registry.ErrImportNotEmpty
	}
	on := true
	if err := tx.QueryRowContext(ctx, u.Probe).Scan(&on); err != nil {
		return err
	}
	if on {
		return errors.New("import: the foreign-key checks are on in the build's transaction")
	}
	if err := s.checkParentIDs(ctx, tx, `SELECT name FROM zones WHERE name = ?`, `SELECT id FROM registrars WHERE id IN (%s)`, b.Zone, b.Registrars); err != nil {
		return err
	}
	var first int64
	if err := tx.QueryRowContext(ctx, bd.NextID).Scan(&first); err != nil {
		return err
	}
	var indexes []builtIndex
	err = queryEach(ctx, tx, bd.Indexes, nil, func(r *sql.Rows) error {
		var x builtIndex
		err := r.Scan(&x.name, &x.create)
		indexes = append(indexes, x)
		return err
	})
	if err != nil {
		return err
	}
	for _, x := range indexes {
		if _, err := tx.ExecContext(ctx, `DROP INDEX `+quoteIdent(x.name)); err != nil {
			return err
		}
	}
	key := s.key(b.Zone)
	id := func(n int64) int64 { return first + n - 1 }

	domains := s.inserter(ctx, tx, u.Insert+` INTO domains (id, zone, label, alabel, lang, registrar_id, created, expires, data_version, legacy) VALUES `, ``, 10, nil)
	defer domains.close()
	sets := s.inserter(ctx, tx, u.Insert+` INTO exempt_sets (zone, label, domain_id) VALUES `, ``, 3, nil)
	defer sets.close()
	var written int64
	err = b.EachDomain(func(it *registry.ImportItem) error {
		d := &it.Domain
		written++
		if d.ID != written {
			return fmt.Errorf("import: domain %s is number %d, not %d", d.Name, d.ID, written)
		}
		d.ID = id(d.ID)
		if err := domains.add(d.ID, b.Zone, d.Label, d.ALabel, d.Lang, it.RegistrarID, d.Created.UnixNano(), nanos(d.Expires), d.DataVersion, strings.Join(d.Legacy, " ")); err != nil {
			return err
		}
		if d.Exempted {
			for _, l := range uniq(d.Blocks) {
				if err := sets.add(key, l, d.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if written != b.Domains {
		return fmt.Errorf("import: %d domains written of %d", written, b.Domains)
	}
	blocks := s.inserter(ctx, tx, u.Insert+` INTO blocks (zone, label, domain_id) VALUES `, ``, 3, nil)
	defer blocks.close()
	err = b.EachBlock(func(label string, n int64) error {
		if n < 1 || n > b.Domains {
			return fmt.Errorf("import: the label %s is held by domain number %d of %d", label, n, b.Domains)
		}
		return blocks.add(key, label, id(n))
	})
	if err != nil {
		return err
	}
	pairs := s.inserter(ctx, tx, u.Insert+` INTO exemptions (domain_id, other_id) VALUES `, ``, 2, nil)
	defer pairs.close()
	for _, p := range b.Pairs {
		if err := pairs.add(id(p[0]), id(p[1])); err != nil {
			return err
		}
		if err := pairs.add(id(p[1]), id(p[0])); err != nil {
			return err
		}
	}
	for _, w := range []*rowInserter{domains, sets, blocks, pairs} {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if b.Stage != nil {
		b.Stage("building the indexes")
	}
	for _, x := range indexes {
		if _, err := tx.ExecContext(ctx, x.create); err != nil {
			return fmt.Errorf("creating the index %s again: %w", x.name, err)
		}
	}
	result := fmt.Sprintf("ok registered %d, exempted %d, duplicates %d", b.Registered, b.Exempted, b.Duplicates)
	return s.importRecord(ctx, tx, b.Source, b.Zone, b.LastLine, true, stamp, result, b.Note)
}

// uniq returns the labels of l each once, in their first order (a
// conflict set lists each once; a row of exempt_sets per label).
func uniq(l []string) []string {
	out := make([]string, 0, len(l))
	for _, x := range l {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
