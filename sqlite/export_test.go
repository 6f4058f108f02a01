package sqlite

// OpenDriver is Open through the database/sql driver registered as
// driverName (a wrapper of this one that injects faults).
var OpenDriver = open
