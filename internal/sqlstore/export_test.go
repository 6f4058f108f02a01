package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// IndexedQueries are the queries that read domains by registrar or by a
// lifecycle time (the indexes of migrations 070 and 170), as the store
// runs them (placeholders in the dialect's form).
func (s *Store) IndexedQueries() []string {
	var out []string
	for _, q := range append([]string{domainsOfQuery, domainsPageQuery, registrarsQuery}, lifecycleDueQueries...) {
		out = append(out, s.q(q))
	}
	return out
}

// LabelQueries are the queries that read domains by (zone, label): a
// domain's, and the import's look-up of a list of labels (here three).
func (s *Store) LabelQueries() []string {
	return []string{s.q(domainByLabelQuery), s.q(fmt.Sprintf(registeredLabelsQuery, "?, ?, ?"))}
}

// PruneMarks is pruneMarks, for the tests.
func (s *Store) PruneMarks(ctx context.Context, before time.Time) (int64, error) {
	return s.pruneMarks(ctx, before)
}
