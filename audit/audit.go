// Package audit checks a stream of labels (a zone's labels, a reserved-names
// list) against the IDN policy on every core, in bounded memory, and
// summarizes the result: how many are valid, and the invalid ones by rule
// code with examples.
package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/akshara-idn/akshara"
)

// Options configure a run.
type Options struct {
	// Lang is the language to check in; nil checks every label in every
	// language of its script (akshara.Detect).
	Lang *akshara.Language
	// Workers is the number of goroutines checking labels; 0 means
	// GOMAXPROCS.
	Workers int
	// Examples is how many example labels to keep per rule code (default
	// 3); they are the first ones in the input.
	Examples int
	// ChunkSize is the size of the blocks the input is read in (default
	// 1 MiB). Memory use is about 2 × (Workers + 2) × ChunkSize, whatever
	// the input's size; a longer line gets a larger block of its own.
	ChunkSize int
}

// CodeCount is how many labels broke one rule, with examples.
type CodeCount struct {
	Code     akshara.Code `json:"code"`
	Count    int64        `json:"count"`
	Examples []string     `json:"examples"`
}

// LangCount is how many labels a language accepts (auto mode).
type LangCount struct {
	Lang  string `json:"lang"`
	Valid int64  `json:"valid"`
}

// Summary is the result of a run.
type Summary struct {
	Lang    string        `json:"lang"` // the language tag, or "auto"
	Labels  int64         `json:"labels"`
	Valid   int64         `json:"valid"`
	Invalid int64         `json:"invalid"`
	ByCode  []CodeCount   `json:"by_code"` // most frequent first; a label counts once per code it breaks
	ByLang  []LangCount   `json:"by_lang,omitempty"`
	Bytes   int64         `json:"bytes"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Rate    float64       `json:"labels_per_second"`
}

// Progress is read while a run goes on (Counters).
type Progress struct {
	Bytes  atomic.Int64 // input bytes checked
	Labels atomic.Int64 // labels checked
}

type chunk struct {
	seq  int
	data []byte
	buf  *[]byte // returned to the pool when done
}

// example is a candidate example with its place in the input.
type example struct {
	seq, off int
	label    string
}

type tally struct {
	labels, valid int64
	codes         map[akshara.Code]int64
	examples      map[akshara.Code][]example
	langs         []int64 // auto: labels each language accepts, by Detector index
}

// Run reads labels, one per line (LF or CRLF; blank lines are skipped),
// from r until EOF and summarizes them. p, if not nil, is updated as the
// run goes on.
func Run(ctx context.Context, r io.Reader, o Options, p *Progress) (*Summary, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Examples <= 0 {
		o.Examples = 3
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = 1 << 20
	}
	if p == nil {
		p = &Progress{}
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// A fixed set of buffers bounds memory: the reader waits for a free one.
	nbuf := 2 * (o.Workers + 2)
	free := make(chan *[]byte, nbuf)
	for i := 0; i < nbuf; i++ {
		b := make([]byte, o.ChunkSize)
		free <- &b
	}
	work := make(chan chunk, o.Workers)
	var readErr error
	go func() {
		defer close(work)
		readErr = split(ctx, r, free, work, o.ChunkSize)
	}()

	var det *akshara.Detector
	if o.Lang == nil {
		var err error
		if det, err = akshara.NewDetector(); err != nil {
			return nil, err
		}
	}
	tallies := make([]*tally, o.Workers)
	var wg sync.WaitGroup
	for w := 0; w < o.Workers; w++ {
		t := &tally{codes: map[akshara.Code]int64{}, examples: map[akshara.Code][]example{}}
		if det != nil {
			t.langs = make([]int64, len(det.Languages()))
		}
		tallies[w] = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				t.check(c, o, det, p)
				free <- c.buf
			}
		}()
	}
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return merge(tallies, o, det, start, p), nil
}

// split cuts the input into chunks that end at line ends.
func split(ctx context.Context, r io.Reader, free chan *[]byte, work chan<- chunk, size int) error {
	var carry []byte
	for seq := 0; ; seq++ {
		var buf *[]byte
		select {
		case buf = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		b := (*buf)[:0]
		if cap(b) < len(carry)+size/2 {
			b = make([]byte, 0, len(carry)+size)
		}
		b = append(b, carry...)
		carry = carry[:0]
		n, err := io.ReadAtLeast(r, b[len(b):cap(b)], 1)
		b = b[:len(b)+n]
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return fmt.Errorf("reading labels: %w", err)
		}
		if !eof {
			// keep the partial last line for the next chunk
			if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
				carry = append(carry, b[i+1:]...)
				b = b[:i+1]
			} else {
				carry = append(carry, b...) // a line longer than the block
				b = b[:0]
			}
		}
		*buf = b[:cap(b)]
		if len(b) > 0 || eof {
			work <- chunk{seq: seq, data: b, buf: buf}
		} else {
			free <- buf
		}
		if eof {
			if len(carry) > 0 {
				return fmt.Errorf("reading labels: internal error: %d bytes left", len(carry))
			}
			return nil
		}
	}
}

// check runs one chunk.
func (t *tally) check(c chunk, o Options, det *akshara.Detector, p *Progress) {
	data := c.data
	var labels int64
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		lineOff := off
		off = end + 1
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if blank(line) {
			continue
		}
		labels++
		// The label is only read while the chunk is held; examples copy it.
		label := unsafe.String(unsafe.SliceData(line), len(line))
		var res *akshara.Result
		if o.Lang != nil {
			if o.Lang.Valid(label) {
				t.valid++
				continue
			}
			res = o.Lang.CheckOptions(label, akshara.Options{Brief: true})
		} else {
			accepted, permissive := det.Valid(label)
			if accepted != 0 {
				for i := range t.langs {
					if accepted&(1<<i) != 0 {
						t.langs[i]++
					}
				}
				t.valid++
				continue
			}
			res = permissive.CheckOptions(label, akshara.Options{Brief: true})
		}
		var seen uint64 // codes already counted for this label
		for _, e := range res.Errors {
			if seen&(1<<e.Code) != 0 {
				continue
			}
			seen |= 1 << e.Code
			t.codes[e.Code]++
			if ex := t.examples[e.Code]; len(ex) < o.Examples {
				t.examples[e.Code] = append(ex, example{c.seq, lineOff, strings.Clone(label)})
			}
		}
	}
	t.labels += labels
	p.Labels.Add(labels)
	p.Bytes.Add(int64(len(data)))
}

func merge(tallies []*tally, o Options, det *akshara.Detector, start time.Time, p *Progress) *Summary {
	s := &Summary{Lang: "auto"}
	if o.Lang != nil {
		s.Lang = o.Lang.Tag
	}
	codes := map[akshara.Code]int64{}
	examples := map[akshara.Code][]example{}
	langs := map[string]int64{}
	for _, t := range tallies {
		s.Labels += t.labels
		s.Valid += t.valid
		for c, n := range t.codes {
			codes[c] += n
		}
		for c, ex := range t.examples {
			examples[c] = append(examples[c], ex...)
		}
		for i, n := range t.langs {
			if n > 0 {
				langs[det.Languages()[i].Tag] += n
			}
		}
	}
	s.Invalid = s.Labels - s.Valid
	for c, n := range codes {
		ex := examples[c]
		sort.Slice(ex, func(i, j int) bool {
			if ex[i].seq != ex[j].seq {
				return ex[i].seq < ex[j].seq
			}
			return ex[i].off < ex[j].off
		})
		cc := CodeCount{Code: c, Count: n, Examples: []string{}}
		for i := 0; i < len(ex) && i < o.Examples; i++ {
			cc.Examples = append(cc.Examples, ex[i].label)
		}
		s.ByCode = append(s.ByCode, cc)
	}
	sort.Slice(s.ByCode, func(i, j int) bool {
		if s.ByCode[i].Count != s.ByCode[j].Count {
			return s.ByCode[i].Count > s.ByCode[j].Count
		}
		return s.ByCode[i].Code < s.ByCode[j].Code
	})
	for l, n := range langs {
		s.ByLang = append(s.ByLang, LangCount{l, n})
	}
	sort.Slice(s.ByLang, func(i, j int) bool { return s.ByLang[i].Lang < s.ByLang[j].Lang })
	s.Bytes = p.Bytes.Load()
	s.Elapsed = time.Since(start)
	if sec := s.Elapsed.Seconds(); sec > 0 {
		s.Rate = float64(s.Labels) / sec
	}
	return s
}

// blank reports whether a line is empty or white space only (as
// strings.TrimSpace sees it), deciding almost every line on its first byte:
// Unicode's white space is ASCII or starts with the byte C2 (U+0085,
// U+00A0), E1 (U+1680), E2 (U+2000..U+205F) or E3 (U+3000). TestBlank
// checks it against TrimSpace.
func blank(line []byte) bool {
	if len(line) == 0 {
		return true
	}
	switch c := line[0]; {
	case c > ' ' && c < utf8.RuneSelf:
		return false
	case c >= utf8.RuneSelf && c != 0xC2 && c != 0xE1 && c != 0xE2 && c != 0xE3:
		return false
	}
	return len(bytes.TrimSpace(line)) == 0
}
