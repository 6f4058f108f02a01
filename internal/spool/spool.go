// Package spool is a byte stream written once and read back from the
// start any number of times, kept in memory up to a limit and moved to an
// unlinked temporary file beyond it: what the re-audit keeps of each
// domain of a zone until the zone is done, so that its memory does not
// grow with the zone (docs/import.md, "akshara reaudit").
package spool

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Spool is written (Write, the Put methods), then read (Reader) any
// number of times; Close removes its file. Not for concurrent use.
type Spool struct {
	limit int
	mem   bytes.Buffer
	f     *os.File
	name  string // the file's name while it must be removed at Close
	w     *bufio.Writer
	size  int64
	err   error
	num   [binary.MaxVarintLen64]byte
}

// New returns an empty Spool that moves to a temporary file (in
// os.TempDir) once it holds more than limit bytes.
func New(limit int) *Spool { return &Spool{limit: limit} }

// Spilled says whether the spool has moved to a file.
func (s *Spool) Spilled() bool { return s.f != nil }

// Size is the number of bytes written.
func (s *Spool) Size() int64 { return s.size }

// Write appends p. A write error is kept and returned by every later call
// and by Err.
func (s *Spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.f == nil && s.mem.Len()+len(p) > s.limit {
		s.spill()
		if s.err != nil {
			return 0, s.err
		}
	}
	s.size += int64(len(p))
	if s.f == nil {
		s.grow(len(p))
		return s.mem.Write(p)
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = fmt.Errorf("writing the spool file: %w", err)
	}
	return n, s.err
}

func (s *Spool) spill() {
	f, err := os.CreateTemp("", "akshara-spool-*")
	if err != nil {
		s.err = fmt.Errorf("creating the spool file: %w", err)
		return
	}
	s.f, s.name = f, f.Name()
	if os.Remove(f.Name()) == nil {
		s.name = "" // unlinked: gone with the process, whatever happens
	}
	s.w = bufio.NewWriterSize(f, 256<<10)
	if _, err := s.w.Write(s.mem.Bytes()); err != nil {
		s.err = fmt.Errorf("writing the spool file: %w", err)
	}
	s.mem = bytes.Buffer{}
}

// grow makes room for n more bytes in memory, doubling the buffer but
// not beyond the limit (a bytes.Buffer may grow to twice its length).
func (s *Spool) grow(n int) {
	if s.mem.Available() >= n {
		return
	}
	c := min(max(2*s.mem.Cap(), s.mem.Len()+n, 4096), max(s.limit, s.mem.Len()+n))
	b := bytes.NewBuffer(make([]byte, 0, c))
	b.Write(s.mem.Bytes())
	s.mem = *b
}

// PutUvarint appends x as a uvarint.
func (s *Spool) PutUvarint(x uint64) {
	s.Write(s.num[:binary.PutUvarint(s.num[:], x)])
}

// PutVarint appends x as a varint.
func (s *Spool) PutVarint(x int64) {
	s.Write(s.num[:binary.PutVarint(s.num[:], x)])
}

// PutUint64 appends x in 8 bytes.
func (s *Spool) PutUint64(x uint64) {
	binary.LittleEndian.PutUint64(s.num[:8], x)
	s.Write(s.num[:8])
}

// PutString appends l: its length (uvarint), then its bytes.
func (s *Spool) PutString(l string) {
	s.PutUvarint(uint64(len(l)))
	if s.err == nil && s.f == nil && s.mem.Len()+len(l) <= s.limit {
		s.size += int64(len(l))
		s.grow(len(l))
		s.mem.WriteString(l)
		return
	}
	s.Write([]byte(l))
}

// Err is the first write error.
func (s *Spool) Err() error { return s.err }

// Reader returns a reader of everything written so far, from the start.
func (s *Spool) Reader() (*Reader, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.f == nil {
		return &Reader{r: bufio.NewReaderSize(bytes.NewReader(s.mem.Bytes()), 4096)}, nil
	}
	return s.Section(0, s.size)
}

// Section returns a reader of the n bytes written from offset off.
func (s *Spool) Section(off, n int64) (*Reader, error) {
	if s.err != nil {
		return nil, s.err
	}
	if off < 0 || n < 0 || off+n > s.size {
		return nil, fmt.Errorf("spool: section %d+%d out of %d bytes", off, n, s.size)
	}
	if s.f == nil {
		return &Reader{r: bufio.NewReaderSize(bytes.NewReader(s.mem.Bytes()[off:off+n]), 4096)}, nil
	}
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("writing the spool file: %w", err)
		return nil, s.err
	}
	return &Reader{r: bufio.NewReaderSize(io.NewSectionReader(s.f, off, n), 64<<10)}, nil
}

// Close frees the spool and removes its file.
func (s *Spool) Close() error {
	s.mem = bytes.Buffer{}
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
	}
	s.f, s.w = nil, nil
	return err
}

// Reader reads a spool back. At the end of the spool its methods return
// io.EOF; a spool cut short gives io.ErrUnexpectedEOF.
type Reader struct {
	r   *bufio.Reader
	buf []byte
}

// More says whether anything is left to read.
func (r *Reader) More() bool {
	_, err := r.r.Peek(1)
	return err == nil
}

// Uvarint reads a uvarint.
func (r *Reader) Uvarint() (uint64, error) { return binary.ReadUvarint(r.r) }

// Varint reads a varint.
func (r *Reader) Varint() (int64, error) { return binary.ReadVarint(r.r) }

// Uint64 reads 8 bytes written by PutUint64.
func (r *Reader) Uint64() (uint64, error) {
	var b [8]byte
	if _, err := io.ReadFull(r.r, b[:]); err != nil {
		return 0, unexpected(err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// Bytes reads a string written by PutString into a buffer that the next
// read overwrites.
func (r *Reader) Bytes() ([]byte, error) {
	n, err := r.Uvarint()
	if err != nil {
		return nil, err
	}
	if n > 1<<30 {
		return nil, errors.New("spool: a string longer than 1 GiB")
	}
	if uint64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		return nil, unexpected(err)
	}
	return r.buf, nil
}

// String reads a string written by PutString.
func (r *Reader) String() (string, error) {
	b, err := r.Bytes()
	return string(b), err
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
