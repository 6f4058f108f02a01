// Package postgres is the production registry store: PostgreSQL (or a
// PostgreSQL-compatible distributed database) through pgx.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"io/fs"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/akshara-idn/akshara/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Open connects to the database at dsn (a postgres:// URL or key=value
// string) and applies the migrations.
func Open(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	sub, _ := fs.Sub(migrations, "migrations")
	s, err := sqlstore.New(ctx, db, sqlstore.Dialect{Name: "postgres", Dollar: true, IsUnique: isUnique, Migrations: sub,
		IsTransient: isTransient, IsRefused: isRefused, IsFull: isFull})
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// isUnique reports a unique_violation (SQLSTATE 23505).
func isUnique(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505"
}
