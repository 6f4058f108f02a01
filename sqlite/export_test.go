package sqlite

// SetCacheReads turns the read cache of the stores Open returns on or off
// (benchmarks compare both) and returns a function that restores it.
func SetCacheReads(on bool) (restore func()) {
	old := cacheReads
	cacheReads = on
	return func() { cacheReads = old }
}

// OpenDriver is Open through the database/sql driver registered as
// driverName (a wrapper of this one that injects faults).
var OpenDriver = open

// IsUnique is the dialect's test of a unique constraint violation.
var IsUnique = isUnique
