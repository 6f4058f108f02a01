//go:build !unix

package sqlite

import "github.com/akshara-idn/akshara/internal/sqlstore"

// newWALMark: no mark outside Unix; the read cache polls every lookup.
func newWALMark(string) sqlstore.ChangeMark { return nil }
