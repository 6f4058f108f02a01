package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
)

// The answer of a check is written without reflection into a pooled
// buffer: the same bytes as writeJSON's json.Encoder (HTML not escaped,
// a newline at the end), which TestCheckJSON compares over many results.

var jsonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// jsonContentType is writeJSON's Content-Type, shared by the answers
// (net/http only reads a header's values).
var jsonContentType = []string{"application/json; charset=utf-8"}

// writeCheck writes a check's answer (200) as writeJSON would.
func writeCheck(w http.ResponseWriter, res *registry.CheckResult) error {
	bp := jsonBufs.Get().(*[]byte)
	b, ok := appendCheckResult((*bp)[:0], res)
	if !ok { // a result encoding/json must judge (an unknown rule code)
		jsonBufs.Put(bp)
		return writeJSON(w, http.StatusOK, res)
	}
	b = append(b, '\n')
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	if cap(b) <= 64<<10 { // a huge answer is not kept
		*bp = b
		jsonBufs.Put(bp)
	}
	return err
}

// appendCheckResult appends res as encoding/json encodes it (without the
// newline); ok false: a rule code that has no name, which encoding/json
// refuses with an error.
func appendCheckResult(b []byte, res *registry.CheckResult) ([]byte, bool) {
	if res == nil {
		return append(b, "null"...), true
	}
	b = append(b, `{"name":`...)
	b = appendJSONString(b, res.Name)
	b = append(b, `,"ulabel":`...)
	b = appendJSONString(b, res.ULabel)
	b = append(b, `,"alabel":`...)
	b = appendJSONString(b, res.ALabel)
	b = append(b, `,"zone":`...)
	b = appendJSONString(b, res.Zone)
	b = append(b, `,"lang":`...)
	b = appendJSONString(b, res.Lang)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, string(res.Status))
	b = append(b, `,"errors":`...)
	var ok bool
	if b, ok = appendErrors(b, res.Errors); !ok {
		return b, false
	}
	if res.BlockedBy != "" {
		b = append(b, `,"blocked_by":`...)
		b = appendJSONString(b, res.BlockedBy)
	}
	if res.HolderState != "" {
		b = append(b, `,"holder_state":`...)
		b = appendJSONString(b, res.HolderState)
		b = append(b, `,"frees_at":`...)
		b = appendJSONString(b, res.FreesAt.UTC().Format(time.RFC3339Nano))
	}
	b = append(b, `,"variants":`...)
	b = appendStrings(b, res.Variants)
	b = append(b, `,"data_version":`...)
	b = appendJSONString(b, res.DataVersion)
	if res.Exempted {
		b = append(b, `,"exempted":true`...)
	}
	if len(res.ExemptWith) > 0 {
		b = append(b, `,"exempt_with":`...)
		b = appendStrings(b, res.ExemptWith)
	}
	return append(b, '}'), true
}

func appendErrors(b []byte, errs []*akshara.Error) ([]byte, bool) {
	if errs == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, e := range errs {
		if i > 0 {
			b = append(b, ',')
		}
		if e == nil {
			b = append(b, "null"...)
			continue
		}
		code, err := e.Code.MarshalText()
		if err != nil {
			return b, false
		}
		b = append(b, `{"code":`...)
		b = appendJSONString(b, string(code))
		b = append(b, `,"pos":`...)
		b = strconv.AppendInt(b, int64(e.Pos), 10)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, e.Message)
		b = append(b, '}')
	}
	return append(b, ']'), true
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendJSONString is encoding/json's string encoding with HTML escaping
// off: '"' and '\\' escaped, control characters as \b \f \n \r \t or
// \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
