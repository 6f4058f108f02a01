package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// isTransient reports a fault a retry may get past (internal/sqlstore
// retry.go): a serialization failure (SQLSTATE 40001), a deadlock
// (40P01), a connection exception (class 08), a backend terminated by an
// administrator or a restart (57P01, 57P02, 57P03), a connection that
// broke or was refused (the server restarting), or an error pgx marks as
// safe to retry (nothing was sent).
func isTransient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "40001", pe.Code == "40P01", strings.HasPrefix(pe.Code, "08"),
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
			return true
		}
		return false
	}
	if pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne):
		return true
	}
	// pgx reports a connection it closed after a fault in words only
	return strings.Contains(err.Error(), "conn closed")
}

// isRefused reports that the database answered that a transaction was not
// committed (serialization failure, deadlock).
func isRefused(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// isFull reports insufficient resources (SQLSTATE class 53: disk full,
// out of memory, too many connections).
func isFull(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.HasPrefix(pe.Code, "53")
}
