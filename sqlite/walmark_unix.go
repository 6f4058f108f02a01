//go:build unix

package sqlite

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/akshara-idn/akshara/internal/sqlstore"
)

// walMark reads the WAL-index header of a database in WAL mode: the first
// 96 bytes of the "-shm" file, which every connection of every process
// maps, two copies of a 48-byte header that a commit rewrites (its frame
// count, salts and checksums; https://www.sqlite.org/walformat.html,
// "The WAL-Index Header"). The read cache compares it with the reading
// taken before its last poll of PRAGMA data_version, and skips the poll
// (a read transaction: two fcntl locks) when no commit has come since.
//
// A writer writes the second copy, then the first; a reader reads the
// first, then the second, and trusts them only when they are equal and
// initialized, as SQLite's own readers do (walIndexTryHdr). The mapping
// is read only while the cache's poll connection is open: that
// connection holds the shared-memory lock that keeps any other
// connection from resetting the file (sqlstore.ChangeMark).
type walMark struct {
	path string
	mem  []byte // the first page of the -shm file, mapped read-only
}

func newWALMark(dbPath string) sqlstore.ChangeMark { return &walMark{path: dbPath + "-shm"} }

// walHdrWords is the size of one copy of the header in 32-bit words.
const walHdrWords = 12

func (w *walMark) Open() error {
	if w.mem != nil {
		return nil
	}
	f, err := os.Open(w.path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() < 2*4*walHdrWords {
		return errors.New("sqlite: the wal-index is not initialized")
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, 2*4*walHdrWords, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	w.mem = mem
	return nil
}

func (w *walMark) Mark() (m sqlstore.Mark, ok bool) {
	if w.mem == nil {
		return m, false
	}
	words := (*[2 * walHdrWords]uint32)(unsafe.Pointer(&w.mem[0]))
	for i := range walHdrWords { // the first copy, then the second
		m[i] = atomic.LoadUint32(&words[i])
	}
	for i := walHdrWords; i < 2*walHdrWords; i++ {
		m[i] = atomic.LoadUint32(&words[i])
	}
	// isInit is byte 12 of a header (word 3's first byte in memory)
	isInit := (*[4]byte)(unsafe.Pointer(&m[3]))[0]
	if isInit == 0 || [walHdrWords]uint32(m[:walHdrWords]) != [walHdrWords]uint32(m[walHdrWords:]) {
		return m, false // being written, or not initialized: poll
	}
	return m, true
}

func (w *walMark) Close() error {
	if w.mem == nil {
		return nil
	}
	err := syscall.Munmap(w.mem)
	w.mem = nil
	return err
}
