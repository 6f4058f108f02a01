package postgres

// OpenDriver is Open through the database/sql driver registered as
// driverName (a wrapper of pgx's, stdlib.GetDefaultDriver, that injects
// faults).
var OpenDriver = open
