package sqlstore

// SearchQueries are the domain search's queries (search.go) as the store
// runs them, by the column they range over: label or alabel, each from
// an inclusive bound (a first page) and from a cursor.
func (s *Store) SearchQueries() map[string][]string {
	out := map[string][]string{}
	for _, column := range []string{"label", "alabel"} {
		for _, first := range []bool{true, false} {
			out[column] = append(out[column], s.q(s.searchQuery(column, first)))
		}
	}
	return out
}
