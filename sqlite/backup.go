package sqlite

import (
	"context"
	"fmt"
	"os"

	"github.com/akshara-idn/akshara/internal/sqlstore"
)

// Backup writes an online, consistent copy of the store's database to the
// new file dest with VACUUM INTO: one read transaction (WAL readers do
// not block the writers, nor they it), a compact file, fsynced. dest must
// not exist.
func Backup(ctx context.Context, s *sqlstore.Store, dest string) error {
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("backup: %s exists; choose a new file", dest)
	}
	if _, err := s.DB().ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	f, err := os.Open(dest)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("backup: syncing %s: %w", dest, err)
	}
	return nil
}
