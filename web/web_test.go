package web_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/web"
)

// browser returns a headless Chromium (Debian's package, never a download),
// or skips the test when there is none.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("AKSHARA_CHROMIUM")
	if path == "" {
		for _, p := range []string{"chromium", "chromium-browser"} {
			if found, err := exec.LookPath(p); err == nil {
				path = found
				break
			}
		}
	}
	if path == "" {
		t.Skip("no chromium on this machine (apt-get install chromium): browser tests skipped")
	}
	// Chromium may still be writing its profile when the test ends, so the
	// profile is not t.TempDir (whose cleanup fails on a busy directory):
	// it is removed last, after the browser is stopped, best effort.
	profile, err := os.MkdirTemp("", "akshara-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(420, 900), // a phone's width
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// server runs the registry with the page, with किताब.भारत registered.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	svc := registrytest.SQLiteService(t)
	r, _, _ := svc.AddRegistrar(ctx, "acme")
	if _, err := svc.Create(ctx, r, "किताब.भारत", "hi"); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{Page: web.Handler()}))
	t.Cleanup(ts.Close)
	return ts
}

func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil { // quality 100: PNG
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// typeLabel types a label (replacing what is there) and waits for its
// answer; the select changes fire the change event like a user's would.
func typeLabel(ctx context.Context, zone, lang, label string) error {
	return chromedp.Run(ctx,
		chromedp.SetValue("#zone", zone, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("zone").dispatchEvent(new Event("change"))`, nil),
		chromedp.SetValue("#lang", lang, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("lang").dispatchEvent(new Event("change"))`, nil),
		chromedp.Evaluate(`document.getElementById("label").value = ""`, nil), // select all and delete
		chromedp.Focus("#label", chromedp.ByID),
		chromedp.SendKeys("#label", label, chromedp.ByID),
		chromedp.WaitVisible(`#result[data-label="`+label+`"]`, chromedp.ByQuery),
	)
}

func text(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	var s string
	if err := chromedp.Run(ctx, chromedp.Text(sel, &s, chromedp.ByQuery)); err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return s
}

func attr(ctx context.Context, t *testing.T, sel, name string) string {
	t.Helper()
	var v string
	var ok bool
	if err := chromedp.Run(ctx, chromedp.AttributeValue(sel, name, &v, &ok, chromedp.ByQuery)); err != nil {
		t.Fatalf("%s[%s]: %v", sel, name, err)
	}
	return v
}

func TestPage(t *testing.T) {
	ctx := browser(t)
	ts := server(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(`body[data-ready="true"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}

	t.Run("valid Hindi word", func(t *testing.T) {
		if err := typeLabel(ctx, "भारत", "hi", "हिंदी"); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "valid-hindi")
		if v := attr(ctx, t, "#result", "data-valid"); v != "true" {
			t.Errorf("data-valid %q", v)
		}
		if s := attr(ctx, t, "#status", "data-status"); s != "available" {
			t.Errorf("status %q", s)
		}
		if s := text(ctx, t, "#syllables"); !strings.Contains(s, "हिं") || !strings.Contains(s, "दी") {
			t.Errorf("aksharas %q", s)
		}
		if a := text(ctx, t, "#alabel"); a != "xn--i1b6e8byah.xn--h2brj9c" {
			t.Errorf("A-label %q", a)
		}
	})

	t.Run("leading matra", func(t *testing.T) {
		if err := typeLabel(ctx, "भारत", "hi", "िकर"); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "leading-matra")
		if v := attr(ctx, t, "#result", "data-valid"); v != "false" {
			t.Errorf("data-valid %q", v)
		}
		if c := text(ctx, t, ".syllable.bad .char.bad"); c != "ि" {
			t.Errorf("marked character %q", c)
		}
		if e := text(ctx, t, `.error[data-code="SYLLABLE"]`); !strings.Contains(e, "vowel sign") {
			t.Errorf("explanation %q", e)
		}
	})

	t.Run("blocked variant", func(t *testing.T) {
		if err := typeLabel(ctx, "भारत", "auto", "कित्ताब"); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "blocked-variant")
		if s := attr(ctx, t, "#status", "data-status"); s != "blocked" {
			t.Errorf("status %q", s)
		}
		if s := text(ctx, t, "#status"); !strings.Contains(s, "किताब.भारत") {
			t.Errorf("status text %q does not name the blocker", s)
		}
	})

	t.Run("Tamil word with detect", func(t *testing.T) {
		if err := typeLabel(ctx, "இந்தியா", "auto", "கிடங்கு"); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "tamil-detect")
		if v := attr(ctx, t, "#result", "data-valid"); v != "true" {
			t.Errorf("data-valid %q", v)
		}
		if l := attr(ctx, t, "#langs", "data-langs"); l != "ta" {
			t.Errorf("languages %q", l)
		}
	})

	t.Run("Hindi interface", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Click("#ui-lang", chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "hindi-interface")
		if h := text(ctx, t, "h1"); h != "डोमेन नाम जाँचें" {
			t.Errorf("title %q", h)
		}
		if v := text(ctx, t, "#verdict"); !strings.Contains(v, "मान्य") {
			t.Errorf("verdict %q", v)
		}
		chromedp.Run(ctx, chromedp.Click("#ui-lang", chromedp.ByID)) // back to English
	})

	t.Run("server unreachable", func(t *testing.T) {
		ts.Close()
		if err := chromedp.Run(ctx,
			chromedp.SendKeys("#label", "क", chromedp.ByID),
			chromedp.WaitVisible("#offline", chromedp.ByID),
		); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "offline")
		if m := text(ctx, t, "#offline"); !strings.Contains(m, "cannot be reached") {
			t.Errorf("offline message %q", m)
		}
	})
}
