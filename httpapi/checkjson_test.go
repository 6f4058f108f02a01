package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// encodeJSON is what writeJSON writes for v.
func encodeJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return buf.Bytes()
}

func sameAsEncodingJSON(t *testing.T, res *registry.CheckResult) {
	t.Helper()
	want := encodeJSON(t, res)
	got, ok := appendCheckResult(nil, res)
	if !ok {
		t.Fatalf("appendCheckResult refused %+v", res)
	}
	got = append(got, '\n')
	if !bytes.Equal(got, want) {
		t.Fatalf("appendCheckResult:\n%s\nencoding/json:\n%s", got, want)
	}
	// and through the handler's writer
	w := httptest.NewRecorder()
	if err := writeCheck(w, res); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Body.Bytes(), want) || w.Header().Get("Content-Type") != "application/json; charset=utf-8" || w.Code != 200 {
		t.Fatalf("writeCheck: %d %q\n%s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
}

// TestCheckJSON: the check's answer encoded by hand is encoding/json's,
// byte for byte, for the results of a real service (available, invalid,
// registered, blocked, reserved, exempted, several languages) and for
// made-up results whose strings hold everything JSON escapes.
func TestCheckJSON(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{"http", ""}})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	const kitab, kittab = "किताब.भारत", "कित्ताब.भारत"
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: kittab, Lang: "hi", Exempt: true}); err != nil { // a variant of kitab: exempted with it
		t.Fatal(err)
	}
	if _, err := svc.Reserve(ctx, "कमल.भारत", "test"); err != nil {
		t.Fatal(err)
	}
	statuses := map[registry.Status]int{}
	names := []string{kitab, kittab, "किताबें.भारत", "कमल.भारत", "क्\u200dष.भारत", "abc.भारत", "्क.भारत", "कि\u093f.भारत",
		"क.भारत", "नमस्ते.भारत", "\u2028.भारत", "a\"b\\c.भारत", "\xff.भारत", "ক.ভারত", "கடல்.இந்தியா", "xn--11b4c3d.भारत"}
	for i := 0; i < 200; i++ {
		cons, signs := []rune("कखगघचछजझटठडढतथदधनपफबभमयरलवशसह"), []rune("ािीुूेैोौंः्")
		names = append(names, string(cons[i%len(cons)])+string(signs[i%len(signs)])+"क.भारत")
	}
	// names whose variants are then blocked
	for i, created := 0, 0; i < len(names) && created < 3; i++ {
		if res, err := svc.Check(ctx, names[i], "hi"); err == nil && res.Status == registry.Available && len(res.Variants) > 0 {
			if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: names[i], Lang: "hi"}); err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Variants {
				names = append(names, v+".भारत")
			}
			created++
		}
	}
	for _, name := range names {
		for _, lang := range []string{"hi", "mr", "bn", "ta", ""} {
			res, err := svc.Check(ctx, name, lang)
			if err != nil {
				continue // an error is answered by writeError
			}
			statuses[res.Status]++
			sameAsEncodingJSON(t, res)
		}
	}
	for _, s := range []registry.Status{registry.Available, registry.Invalid, registry.Registered, registry.Blocked, registry.Reserved} {
		if statuses[s] == 0 {
			t.Errorf("no %s result compared: %v", s, statuses)
		}
	}
	exempted := 0 // (and compared above)
	if res, err := svc.Check(ctx, kittab, "hi"); err == nil && res.Exempted && len(res.ExemptWith) > 0 {
		exempted++
	}
	if exempted == 0 {
		t.Error("no exempted result compared")
	}

	// made-up results: every escape, nil and empty lists
	alphabet := []string{"a", "\"", "\\", "/", "<", ">", "&", "\x00", "\x01", "\x1f", "\b", "\f", "\n", "\r", "\t", "\x7f",
		"\u2028", "\u2029", "\u2027", "क", "্", "\u200d", "\ufffd", "\xff", "\xe0\xa4", "😀", "\xed\xa0\x80", " ", "u"}
	rng := rand.New(rand.NewPCG(3, 4))
	str := func() string {
		var b strings.Builder
		for j := rng.IntN(8); j > 0; j-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	strs := func() []string {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		ss := make([]string, 1+rng.IntN(3))
		for i := range ss {
			ss[i] = str()
		}
		return ss
	}
	for i := 0; i < 5000; i++ {
		res := &registry.CheckResult{Name: str(), ULabel: str(), ALabel: str(), Zone: str(), Lang: str(),
			Status: registry.Status(str()), BlockedBy: str(), Variants: strs(), DataVersion: str(),
			Exempted: rng.IntN(2) == 0, ExemptWith: strs()}
		switch rng.IntN(3) {
		case 0:
		case 1:
			res.Errors = []*akshara.Error{}
		default:
			for j := rng.IntN(3); j >= 0; j-- {
				var e *akshara.Error
				if rng.IntN(5) > 0 {
					e = &akshara.Error{Code: akshara.Code(rng.IntN(20)), Pos: rng.IntN(100) - 1, Message: str()}
				}
				res.Errors = append(res.Errors, e)
			}
		}
		sameAsEncodingJSON(t, res)
	}
	// an unknown rule code: encoding/json's error, not made-up bytes
	if _, ok := appendCheckResult(nil, &registry.CheckResult{Errors: []*akshara.Error{{Code: 255}}}); ok {
		t.Error("appendCheckResult encoded an unknown rule code")
	}
}
