package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/lgr"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/web"
)

// missing skips a browser test for want of a tool, except in CI (CI set),
// where the tool must be there and its absence fails.
func missing(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set: .ci/run installs it)")
	}
	t.Skip(msg + ": browser tests skipped")
}

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
		missing(t, "no chromium on this machine (apt-get install chromium)")
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
	// the first Run starts the browser and its tab, which live as long as
	// the context of that Run: this one, not a step's
	if err := chromedp.Run(ctx); err != nil {
		t.Fatal(err)
	}
	ctx, cancel3 := context.WithTimeout(ctx, 150*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// axeSource is axe-core (npm; .ci/run installs it into web/testdata/axe).
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AKSHARA_AXE")
	if path == "" {
		path = filepath.Join("testdata", "axe", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		missing(t, "no axe-core ("+err.Error()+"; cd web/testdata/axe && npm ci)")
	}
	return string(b)
}

// server runs the registry with the page, with किताब.भारत registered,
// सरकार.भारत reserved and पत्ता.भारत (whose variant is पता) deleted, in its
// redemption period.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	svc := registrytest.SQLiteService(t)
	r, _, _ := svc.AddRegistrar(ctx, "acme")
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "किताब.भारत", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Reserve(ctx, "सरकार.भारत", "held by the registry"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "पत्ता.भारत", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: "पत्ता.भारत"}); err != nil {
		t.Fatal(err)
	}
	// as akshara serve mounts them: the page and the RFC 7940 exports
	ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{Page: web.Handler(), Mount: map[string]http.Handler{"GET /lgr/": lgr.Handler()}}))
	t.Cleanup(ts.Close)
	return ts
}

func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(step(ctx), chromedp.FullScreenshot(&png, 100)); err != nil { // quality 100: PNG
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// widths sets the window's width (420: a phone; 1280: a desktop).
func width(t *testing.T, ctx context.Context, w int64) {
	t.Helper()
	if err := chromedp.Run(step(ctx), chromedp.EmulateViewport(w, 900)); err != nil {
		t.Fatal(err)
	}
}

// typeLabel types a label (replacing what is there) and waits for its
// answer; the select changes fire the change event like a user's would.
func typeLabel(ctx context.Context, zone, lang, label string) error {
	return chromedp.Run(step(ctx),
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

// step bounds one wait, so a missing element fails its own check instead
// of using up the whole test's time.
func step(ctx context.Context) context.Context {
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	time.AfterFunc(25*time.Second, cancel) // released when the time is up
	return c
}

func text(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	var s string
	if err := chromedp.Run(step(ctx), chromedp.Text(sel, &s, chromedp.ByQuery)); err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return s
}

func attr(ctx context.Context, t *testing.T, sel, name string) string {
	t.Helper()
	var v string
	var ok bool
	if err := chromedp.Run(step(ctx), chromedp.AttributeValue(sel, name, &v, &ok, chromedp.ByQuery)); err != nil {
		t.Fatalf("%s[%s]: %v", sel, name, err)
	}
	return v
}

func eval[T any](ctx context.Context, t *testing.T, js string) T {
	t.Helper()
	var v T
	if err := chromedp.Run(step(ctx), chromedp.Evaluate(js, &v)); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func evalAsync[T any](ctx context.Context, t *testing.T, js string) T {
	t.Helper()
	var v T
	if err := chromedp.Run(step(ctx), chromedp.Evaluate(js, &v, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// open navigates to a page of the server and waits until it is ready.
func open(ctx context.Context, t *testing.T, u string) {
	t.Helper()
	if err := chromedp.Run(step(ctx), chromedp.Navigate(u), chromedp.WaitVisible(`body[data-ready="true"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
}

// verdict returns the headline's status, tone and text.
func verdict(ctx context.Context, t *testing.T) (status, tone, words string) {
	t.Helper()
	return attr(ctx, t, "#verdict", "data-status"), attr(ctx, t, "#verdict", "data-tone"), text(ctx, t, "#verdict")
}

// audit runs axe-core in the page and fails on serious or critical
// violations; it returns a summary for the log.
func audit(ctx context.Context, t *testing.T, axe, page string) {
	t.Helper()
	var res struct {
		Violations []struct {
			ID, Impact, Help string
			Nodes            []struct{ Target []any }
		}
		Passes []struct{ ID string }
	}
	run := `axe.run(document, {resultTypes: ["violations"]}).then(r => ({violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => ({target: n.target}))})), passes: r.passes.map(p => ({id: p.id}))}))`
	if err := chromedp.Run(step(ctx),
		chromedp.Evaluate(axe, nil),
		chromedp.Evaluate(run, &res, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	); err != nil {
		t.Fatalf("axe-core on %s: %v", page, err)
	}
	var all []string
	for _, v := range res.Violations {
		all = append(all, fmt.Sprintf("%s (%s): %s, %d nodes, first %v", v.ID, v.Impact, v.Help, len(v.Nodes), v.Nodes[0].Target))
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("axe-core on %s: %s violation %s: %s at %v", page, v.Impact, v.ID, v.Help, v.Nodes[0].Target)
		}
	}
	t.Logf("axe-core on %s: %d rules passed, %d violations %v", page, len(res.Passes), len(res.Violations), all)
}

// long: AKSHARA_LONG_TESTS=1 (CI) checks every language's policy page and
// audits more pages; without it the test stays quick for go test ./....
var long = os.Getenv("AKSHARA_LONG_TESTS") == "1"

func TestPage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the browser test takes 20-60 s on a loaded machine")
	}
	ctx := browser(t)
	ts := server(t)
	width(t, ctx, 420)
	open(ctx, t, ts.URL+"/")

	t.Run("valid Hindi word", func(t *testing.T) {
		if err := typeLabel(ctx, "भारत", "hi", "हिंदी"); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "valid-hindi-420")
		if v := attr(ctx, t, "#result", "data-valid"); v != "true" {
			t.Errorf("data-valid %q", v)
		}
		if s, tone, w := verdict(ctx, t); s != "available" || tone != "ok" || !strings.Contains(w, "हिंदी.भारत is available") {
			t.Errorf("verdict %q %q %q", s, tone, w)
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
		shot(t, ctx, "leading-matra-420")
		if v := attr(ctx, t, "#result", "data-valid"); v != "false" {
			t.Errorf("data-valid %q", v)
		}
		if s, tone, w := verdict(ctx, t); s != "invalid" || tone != "bad" || !strings.Contains(w, "is not a valid name") {
			t.Errorf("verdict %q %q %q", s, tone, w)
		}
		if h := attr(ctx, t, "#policy-link", "href"); h != "/policy/hi" {
			t.Errorf("link to the rules: %q", h)
		}
		if c := text(ctx, t, ".syllable.bad .char.bad"); c != "ि" {
			t.Errorf("marked character %q", c)
		}
		if e := text(ctx, t, `.error[data-code="SYLLABLE"]`); !strings.Contains(e, "vowel sign") {
			t.Errorf("explanation %q", e)
		}
	})

	t.Run("too long marks no akshara", func(t *testing.T) {
		long := strings.Repeat("कमल", 20)
		if err := typeLabel(ctx, "भारत", "hi", long); err != nil {
			t.Fatal(err)
		}
		if e := text(ctx, t, `.error[data-code="TOO_LONG"]`); e == "" {
			t.Fatal("no TOO_LONG")
		}
		if n := eval[int](ctx, t, `document.querySelectorAll(".syllable.bad, .char.bad").length`); n != 0 {
			t.Errorf("%d aksharas marked for a rule about the whole name", n)
		}
	})

	t.Run("blocked variant: one headline", func(t *testing.T) {
		if err := typeLabel(ctx, "भारत", "auto", "कित्ताब"); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "blocked-variant-420")
		s, tone, w := verdict(ctx, t)
		if s != "blocked" || tone != "taken" || !strings.Contains(w, "cannot be registered") || !strings.Contains(w, "किताब.भारत") {
			t.Errorf("verdict %q %q %q: should say it cannot be registered and name the blocker", s, tone, w)
		}
		if n := eval[int](ctx, t, `document.querySelectorAll("#result [data-tone]").length`); n != 1 {
			t.Errorf("%d coloured headlines, want 1", n)
		}
	})

	t.Run("registered", func(t *testing.T) {
		if err := typeLabel(ctx, "भारत", "auto", "किताब"); err != nil {
			t.Fatal(err)
		}
		if s, tone, w := verdict(ctx, t); s != "registered" || tone != "taken" || !strings.Contains(w, "already registered") {
			t.Errorf("verdict %q %q %q", s, tone, w)
		}
	})

	t.Run("reserved", func(t *testing.T) {
		if err := typeLabel(ctx, "भारत", "auto", "सरकार"); err != nil {
			t.Fatal(err)
		}
		if s, tone, w := verdict(ctx, t); s != "reserved" || tone != "taken" || !strings.Contains(w, "reserved by the registry") {
			t.Errorf("verdict %q %q %q", s, tone, w)
		}
	})

	t.Run("held by a deleted domain", func(t *testing.T) {
		// issue 34 item 7: the name and its variant say who holds them, in
		// which state, and when they are freed (the check answer's
		// holder_state and frees_at), in the headline's language
		var check struct {
			HolderState string `json:"holder_state"`
			FreesAt     string `json:"frees_at"`
		}
		resp, err := http.Get(ts.URL + "/v1/check?name=" + url.QueryEscape("पता.भारत"))
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&check)
		resp.Body.Close()
		frees, perr := time.Parse(time.RFC3339Nano, check.FreesAt)
		if err != nil || perr != nil || check.HolderState != "redemptionPeriod" {
			t.Fatalf("check: %+v %v %v", check, err, perr)
		}
		day, year, month := fmt.Sprint(frees.Day()), fmt.Sprint(frees.Year()), frees.Month().String()
		for _, tc := range []struct{ label, status, headline string }{
			{"पता", "blocked", "looks like the registered name पत्ता.भारत"},
			{"पत्ता", "registered", "already registered"},
		} {
			if err := typeLabel(ctx, "भारत", "auto", tc.label); err != nil {
				t.Fatal(err)
			}
			if tc.label == "पता" {
				shot(t, ctx, "held-variant-420")
			}
			if s, _, w := verdict(ctx, t); s != tc.status || !strings.Contains(w, tc.headline) {
				t.Errorf("%s: verdict %q %q", tc.label, s, w)
			}
			if st := attr(ctx, t, "#held", "data-state"); st != "redemptionPeriod" {
				t.Errorf("%s: held state %q", tc.label, st)
			}
			w := text(ctx, t, "#held")
			for _, want := range []string{"Held by पत्ता.भारत, deleted, in its redemption period", "frees at", day, month, year, "UTC"} {
				if !strings.Contains(w, want) {
					t.Errorf("%s: the page says %q: no %q", tc.label, w, want)
				}
			}
			if dt := attr(ctx, t, "#held time", "datetime"); dt != check.FreesAt {
				t.Errorf("%s: <time datetime=%q>, the API's frees_at %q", tc.label, dt, check.FreesAt)
			}
		}
		// a name not held says nothing of a holder
		if err := typeLabel(ctx, "भारत", "auto", "किताब"); err != nil {
			t.Fatal(err)
		}
		if h := eval[bool](ctx, t, `document.getElementById("held").hidden`); !h {
			t.Errorf("a name held by a live domain shows %q", text(ctx, t, "#held"))
		}
		// every state, in both interfaces
		for _, tc := range []struct{ ui, state, words string }{
			{"en", "redemptionPeriod", "Held by पत्ता.भारत, deleted, in its redemption period (its registrar can still restore it); frees at 6 May 2030"},
			{"en", "pendingRestore", "Held by पत्ता.भारत, deleted, its registrar asking to restore it; if it is not restored, frees at 6 May 2030"},
			{"en", "pendingDelete", "Held by पत्ता.भारत, deleted, pending delete (it can no longer be restored); frees at 6 May 2030"},
			{"en", "serverHold", "Held by पत्ता.भारत, deleted (serverHold); frees at 6 May 2030"},
			{"hi", "redemptionPeriod", "पत्ता.भारत के पास, जो हटाया जा चुका है और अपनी रिडेम्पशन अवधि में है"},
			{"hi", "pendingDelete", "पत्ता.भारत के पास, जो हटाया जा चुका है और अब बहाल नहीं हो सकता; 6 मई 2030"},
		} {
			js := `ui = "` + tc.ui + `"; render({label: "पता", zone: "भारत", lang: "hi", langs: ["hi"], valid: true, ulabel: "पता", alabel: "", syllables: [], errors: [], variants: ["पत्ता"], status: "blocked", blocked_by: "पत्ता.भारत", holder_state: "` + tc.state + `", frees_at: "2030-05-06T09:30:00Z"})`
			if err := chromedp.Run(step(ctx), chromedp.Evaluate(js, nil)); err != nil {
				t.Fatal(err)
			}
			if w := text(ctx, t, "#held"); !strings.Contains(w, tc.words) || !strings.Contains(w, "09:30") {
				t.Errorf("%s %s: %q, want %q and 09:30", tc.ui, tc.state, w, tc.words)
			}
		}
		if err := chromedp.Run(step(ctx), chromedp.Evaluate(`ui = "en"`, nil)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("right-to-left aksharas", func(t *testing.T) {
		// issue 22 item 9: an Urdu label's first akshara is the rightmost box
		for _, tc := range []struct {
			lang, label string
			rtl         bool
		}{{"ur", "کتاب", true}, {"sd", "کتاب", true}, {"hi", "किताब", false}} {
			js := `render({label: "` + tc.label + `", zone: "भारत", lang: "` + tc.lang + `", langs: ["` + tc.lang + `"], valid: true, ulabel: "` + tc.label + `", alabel: "", syllables: [{text: "a", start: 0, end: 1}, {text: "b", start: 1, end: 3}, {text: "c", start: 3, end: 4}], errors: [], variants: [], status: "available"})`
			if err := chromedp.Run(step(ctx), chromedp.Evaluate(js, nil)); err != nil {
				t.Fatal(err)
			}
			xs := eval[[]float64](ctx, t, `[...document.querySelectorAll("#syllables .syllable")].map(s => s.getBoundingClientRect().left)`)
			if len(xs) != 3 {
				t.Fatalf("%s: %d boxes", tc.lang, len(xs))
			}
			if rtl := xs[0] > xs[2]; rtl != tc.rtl {
				t.Errorf("%s %s: the boxes at %v, want right to left %v", tc.lang, tc.label, xs, tc.rtl)
			}
		}
	})

	t.Run("every status has a headline", func(t *testing.T) {
		// the statuses of the check answer, those other front ends add
		// (exempted, reserved) and one the page does not know
		for _, tc := range []struct{ status, extra, tone, words string }{
			{"available", "", "ok", "available"},
			{"registered", "", "taken", "already registered"},
			{"blocked", `blocked_by: "किताब.भारत"`, "taken", "looks like the registered name किताब.भारत"},
			{"exempted", `exempt_with: ["किताब.भारत"]`, "taken", "conflicts with किताब.भारत (exempted)"},
			{"registered", `exempted: true, exempt_with: ["कित्ताब.भारत"]`, "taken", "conflicts with कित्ताब.भारत (exempted)"},
			// issue 22 item 7: the name itself is never the one it conflicts with
			{"registered", `exempted: true, blocked_by: "नमूना.भारत", exempt_with: ["कित्ताब.भारत"]`, "taken", "conflicts with कित्ताब.भारत (exempted)"},
			{"reserved", "", "taken", "reserved"},
			{"invalid", "", "bad", "not a valid name"},
			{"on-hold", "", "info", "on-hold"},
		} {
			js := `render({label: "नमूना", zone: "भारत", lang: "hi", langs: ["hi"], valid: true, ulabel: "नमूना", alabel: "", syllables: [], errors: [], variants: [], status: "` + tc.status + `", ` + tc.extra + `})`
			if err := chromedp.Run(step(ctx), chromedp.Evaluate(js, nil)); err != nil {
				t.Fatal(err)
			}
			s, tone, w := verdict(ctx, t)
			if s != tc.status || tone != tc.tone || !strings.Contains(w, "नमूना.भारत") || !strings.Contains(w, tc.words) {
				t.Errorf("%s: headline %q %q %q", tc.status, s, tone, w)
			}
			if n := eval[int](ctx, t, `document.querySelectorAll("#result [data-tone]").length`); n != 1 {
				t.Errorf("%s: %d headlines", tc.status, n)
			}
		}
	})

	t.Run("plain ASCII in in", func(t *testing.T) {
		if err := typeLabel(ctx, "in", "auto", "akshara-2026"); err != nil {
			t.Fatal(err)
		}
		if s, tone, w := verdict(ctx, t); s != "available" || tone != "ok" || !strings.Contains(w, "akshara-2026.in is available") {
			t.Errorf("verdict %q %q %q", s, tone, w)
		}
		if d := text(ctx, t, "#detail"); !strings.Contains(d, "ASCII letters, digits and hyphens") {
			t.Errorf("detail %q", d)
		}
	})

	t.Run("Tamil word with detect", func(t *testing.T) {
		if err := typeLabel(ctx, "இந்தியா", "auto", "கிடங்கு"); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "tamil-detect-420")
		if v := attr(ctx, t, "#result", "data-valid"); v != "true" {
			t.Errorf("data-valid %q", v)
		}
		if l := attr(ctx, t, "#langs", "data-langs"); l != "ta" {
			t.Errorf("languages %q", l)
		}
	})

	t.Run("deep links", func(t *testing.T) {
		for _, tc := range []struct {
			query, label, zone, lang, status string
		}{
			{"name=" + url.QueryEscape("किताब.भारत"), "किताब", "भारत", "auto", "registered"},
			{"name=" + url.QueryEscape("किताब") + "&zone=" + url.QueryEscape("भारत") + "&lang=hi", "किताब", "भारत", "hi", "registered"},
			{"name=xn--i1b6e8byah.xn--h2brj9c", "xn--i1b6e8byah", "भारत", "auto", "available"},
			{"name=" + url.QueryEscape("கிடங்கு") + "&lang=ta", "கிடங்கு", "இந்தியா", "ta", "available"},
			// issue 22 item 8: a final dot and A-labels name the same domain
			{"name=" + url.QueryEscape("किताब.भारत."), "किताब", "भारत", "auto", "registered"},
			{"name=xn--11b4aya5ed.xn--h2brj9c", "xn--11b4aya5ed", "भारत", "auto", "registered"},
		} {
			open(ctx, t, ts.URL+"/?"+tc.query)
			if err := chromedp.Run(step(ctx), chromedp.WaitVisible(`#result[data-label="`+tc.label+`"]`, chromedp.ByQuery)); err != nil {
				t.Fatalf("%s: %v", tc.query, err)
			}
			got := eval[[]string](ctx, t, `["label", "zone", "lang"].map(id => document.getElementById(id).value)`)
			if strings.Join(got, " ") != tc.label+" "+tc.zone+" "+tc.lang {
				t.Errorf("%s: form %q", tc.query, got)
			}
			if s := attr(ctx, t, "#verdict", "data-status"); s != tc.status {
				t.Errorf("%s: status %q, want %q", tc.query, s, tc.status)
			}
			// the result's link reproduces it
			link := attr(ctx, t, "#permalink", "href")
			open(ctx, t, ts.URL+link)
			chromedp.Run(step(ctx), chromedp.WaitVisible(`#result[data-label]`, chromedp.ByQuery))
			if s := attr(ctx, t, "#verdict", "data-status"); s != tc.status {
				t.Errorf("%s: its link %s gives %q", tc.query, link, s)
			}
		}
		shot(t, ctx, "deep-link-420")
	})

	t.Run("deep links that are not label.zone", func(t *testing.T) {
		// issue 22 item 8: the page says what the check API says
		for _, tc := range []struct{ name, code, words string }{
			{"www.किताब.भारत", "BAD_NAME", "third-level name"},
			{"google.com", "UNKNOWN_ZONE", "not a zone this registry serves"},
		} {
			open(ctx, t, ts.URL+"/?name="+url.QueryEscape(tc.name))
			if err := chromedp.Run(step(ctx), chromedp.WaitVisible(`#offline[data-code="`+tc.code+`"]`, chromedp.ByQuery)); err != nil {
				t.Fatalf("%s: %v (the page says %q)", tc.name, err, text(ctx, t, "#offline"))
			}
			if w := text(ctx, t, "#offline"); !strings.Contains(w, tc.words) {
				t.Errorf("%s: the page says %q, want %q", tc.name, w, tc.words)
			}
		}
	})

	t.Run("a full name pasted", func(t *testing.T) {
		if err := chromedp.Run(step(ctx),
			chromedp.SetValue("#zone", "இந்தியா", chromedp.ByID),
			chromedp.Evaluate(`document.getElementById("zone").dispatchEvent(new Event("change"))`, nil),
			chromedp.Evaluate(`document.getElementById("label").value = ""`, nil),
			chromedp.SendKeys("#label", "किताब.भारत", chromedp.ByID),
			chromedp.WaitVisible(`#result[data-label="किताब"]`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		if z := eval[string](ctx, t, `document.getElementById("zone").value`); z != "भारत" {
			t.Errorf("zone %q", z)
		}
		if s := attr(ctx, t, "#verdict", "data-status"); s != "registered" {
			t.Errorf("status %q", s)
		}
	})

	t.Run("back button walks the checks", func(t *testing.T) {
		open(ctx, t, ts.URL+"/?name="+url.QueryEscape("हिंदी.भारत"))
		chromedp.Run(step(ctx), chromedp.WaitVisible(`#result[data-label="हिंदी"]`, chromedp.ByQuery))
		if err := typeLabel(ctx, "भारत", "auto", "किताब"); err != nil {
			t.Fatal(err)
		}
		if q := eval[string](ctx, t, `decodeURIComponent(location.search)`); q != "?name=किताब.भारत" {
			t.Errorf("URL after typing: %q", q)
		}
		t.Logf("history length %d", eval[int](ctx, t, `history.length`))
		if err := chromedp.Run(step(ctx),
			chromedp.Evaluate(`history.back()`, nil),
			chromedp.WaitVisible(`#result[data-label="हिंदी"]`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err, eval[string](ctx, t, `location.href + " " + document.getElementById("label").value+" "+document.getElementById("result").dataset.label`))
		}
		if v := eval[string](ctx, t, `document.getElementById("label").value`); v != "हिंदी" {
			t.Errorf("after back: label %q", v)
		}
		if err := chromedp.Run(step(ctx),
			chromedp.Evaluate(`history.forward()`, nil),
			chromedp.WaitVisible(`#result[data-label="किताब"]`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("keyboard", func(t *testing.T) {
		open(ctx, t, ts.URL+"/")
		if err := typeLabel(ctx, "भारत", "hi", "किताब"); err != nil {
			t.Fatal(err)
		}
		_, _, typed := verdict(ctx, t)
		// the same word by clicking keys, named as a screen reader names them
		if err := chromedp.Run(step(ctx),
			chromedp.Evaluate(`document.getElementById("label").value = ""`, nil),
			chromedp.Click("#kbd-toggle", chromedp.ByID),
			chromedp.WaitVisible(`#keyboard[data-tag="hi"] button`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"DEVANAGARI LETTER KA", "DEVANAGARI VOWEL SIGN I", "DEVANAGARI LETTER TA", "DEVANAGARI VOWEL SIGN AA", "DEVANAGARI LETTER BA"} {
			if err := chromedp.Run(step(ctx), chromedp.Click(`#keyboard button[aria-label="`+name+`"]`, chromedp.ByQuery)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := chromedp.Run(step(ctx), chromedp.WaitVisible(`#result[data-label="किताब"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "keyboard-hindi-420")
		if _, _, clicked := verdict(ctx, t); clicked != typed {
			t.Errorf("clicked: %q, typed: %q", clicked, typed)
		}
		// Hindi's keyboard has no key for what its table refuses (ऴ, ऩ)
		if n := eval[int](ctx, t, `[...document.querySelectorAll("#keyboard button[data-text]")].filter(b => /[ऴऩ०-९।]/.test(b.dataset.text)).length`); n != 0 {
			t.Errorf("%d keys type letters Hindi refuses", n)
		}
		// with the keyboard alone: shift, arrows, Enter, backspace
		if err := chromedp.Run(step(ctx),
			chromedp.Evaluate(`document.getElementById("label").value = ""`, nil),
			chromedp.Focus(`#keyboard button[data-key="k"]`, chromedp.ByQuery),
			chromedp.KeyEvent("\r"),                    // क
			chromedp.KeyEvent(kb.ArrowLeft),            // j: र
			chromedp.KeyEvent(" "),                     // र
			chromedp.KeyEvent(kb.ArrowRight),           // k: क
			chromedp.KeyEvent(kb.ArrowRight),           // l: त
			chromedp.KeyEvent("\r"),                    // त
			chromedp.Click("#kbd-back", chromedp.ByID), // deletes त
			chromedp.Click("#kbd-shift", chromedp.ByID),
			chromedp.Click(`#keyboard button[aria-label="DEVANAGARI LETTER KHA"]`, chromedp.ByQuery), // shift-k
			chromedp.WaitVisible(`#result[data-label="करख"]`, chromedp.ByQuery),
		); err != nil {
			t.Fatalf("%v (label %q)", err, eval[string](ctx, t, `document.getElementById("label").value`))
		}
		if p := attr(ctx, t, "#kbd-shift", "aria-pressed"); p != "false" {
			t.Errorf("shift stays pressed after a letter: %q", p)
		}
		// InScript on the physical keyboard: k f l e y are क ि त ा ब, shift-k ख
		if err := chromedp.Run(step(ctx),
			chromedp.Click("#kbd-physical", chromedp.ByID),
			chromedp.Evaluate(`document.getElementById("label").value = ""`, nil),
			chromedp.Focus("#label", chromedp.ByID),
			chromedp.SendKeys("#label", "kfleyK", chromedp.ByID),
			chromedp.WaitVisible(`#result[data-label="किताबख"]`, chromedp.ByQuery),
			chromedp.Click("#kbd-physical", chromedp.ByID),
		); err != nil {
			t.Fatalf("%v (label %q)", err, eval[string](ctx, t, `document.getElementById("label").value`))
		}
		// another language's keyboard: Malayalam
		if err := chromedp.Run(step(ctx),
			chromedp.SetValue("#kbd-lang", "ml", chromedp.ByID),
			chromedp.Evaluate(`document.getElementById("kbd-lang").dispatchEvent(new Event("change"))`, nil),
			chromedp.WaitVisible(`#keyboard[data-tag="ml"] button`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		if n := eval[int](ctx, t, `document.querySelectorAll('#keyboard button[aria-label^="MALAYALAM LETTER CHILLU"]').length`); n == 0 {
			t.Error("the Malayalam keyboard has no chillu keys")
		}
		shot(t, ctx, "keyboard-malayalam-420")
		width(t, ctx, 1280)
		shot(t, ctx, "keyboard-malayalam-1280")
		width(t, ctx, 420)
	})

	t.Run("accessibility", func(t *testing.T) {
		axe := axeSource(t)
		open(ctx, t, ts.URL+"/?name="+url.QueryEscape("कित्ताब.भारत"))
		if err := chromedp.Run(step(ctx),
			chromedp.WaitVisible(`#result[data-label="कित्ताब"]`, chromedp.ByQuery),
			chromedp.Click("#kbd-toggle", chromedp.ByID),
			chromedp.WaitVisible(`#keyboard button`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		audit(ctx, t, axe, "/ (a blocked name, the keyboard open)")
		open(ctx, t, ts.URL+"/?name="+url.QueryEscape("िकर.भारत"))
		chromedp.Run(step(ctx), chromedp.WaitVisible(`#result[data-label="िकर"]`, chromedp.ByQuery))
		audit(ctx, t, axe, "/ (an invalid name)")
		open(ctx, t, ts.URL+"/?name="+url.QueryEscape("पता.भारत"))
		chromedp.Run(step(ctx), chromedp.WaitVisible(`#held time`, chromedp.ByQuery))
		audit(ctx, t, axe, "/ (a variant held by a deleted domain)")
		pages := []string{"/policy/hi"}
		if long {
			pages = []string{"/policy", "/policy/hi", "/policy/pa", "/policy/ml", "/policy/ur"}
		}
		for _, p := range pages {
			if err := chromedp.Run(step(ctx), chromedp.Navigate(ts.URL+p), chromedp.WaitVisible("h1", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			audit(ctx, t, axe, p)
		}
	})

	t.Run("policy pages", func(t *testing.T) {
		ls, err := akshara.Languages()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			if !long && l.Tag != "hi" && l.Tag != "ml" && l.Tag != "pa" {
				continue // every language with AKSHARA_LONG_TESTS=1 (CI)
			}
			if err := chromedp.Run(step(ctx), chromedp.Navigate(ts.URL+"/policy/"+l.Tag), chromedp.WaitVisible("h1", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			if h := text(ctx, t, "h1"); !strings.HasPrefix(h, l.Name) {
				t.Errorf("%s: title %q", l.Tag, h)
			}
			// its RFC 7940 export is there, as XML
			if st := evalAsync[string](ctx, t, `fetch(document.getElementById("lgr").href).then(r => r.status + " " + r.headers.get("Content-Type"))`); !strings.HasPrefix(st, "200 ") || !strings.Contains(st, "xml") {
				t.Errorf("%s: the LGR link answers %q", l.Tag, st)
			}
			if n := eval[int](ctx, t, `document.querySelectorAll("section.class tbody tr").length`); n != len(l.Repertoire()) {
				t.Errorf("%s: %d rows, %d code points", l.Tag, n, len(l.Repertoire()))
			}
			// nothing wider than the phone's screen but the tables' own scroll
			if w := eval[[]int](ctx, t, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`); w[0] > w[1] {
				t.Errorf("%s: the page is %d px wide in a %d px window", l.Tag, w[0], w[1])
			}
			if long && (l.Tag == "hi" || l.Tag == "ml" || l.Tag == "pa" || l.Tag == "ur") { // tall pages: slow to shoot
				shot(t, ctx, "policy-"+l.Tag+"-420")
			}
		}
		// an example's link checks it
		if err := chromedp.Run(step(ctx), chromedp.Navigate(ts.URL+"/policy/hi"), chromedp.WaitVisible("h1", chromedp.ByQuery),
			chromedp.Click(`tr[data-kind="valid"] a`, chromedp.ByQuery),
			chromedp.WaitVisible(`#result[data-label]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		if v := attr(ctx, t, "#result", "data-valid"); v != "true" {
			t.Errorf("the first valid example of the Hindi page is %q on the check page", v)
		}
		width(t, ctx, 1280)
		chromedp.Run(step(ctx), chromedp.Navigate(ts.URL+"/policy"), chromedp.WaitVisible("h1", chromedp.ByQuery))
		shot(t, ctx, "policy-index-1280")
		if long {
			chromedp.Run(step(ctx), chromedp.Navigate(ts.URL+"/policy/ml"), chromedp.WaitVisible("h1", chromedp.ByQuery))
			shot(t, ctx, "policy-ml-1280")
		}
		width(t, ctx, 420)
	})

	t.Run("desktop width", func(t *testing.T) {
		width(t, ctx, 1280)
		defer width(t, ctx, 420)
		for _, tc := range []struct{ name, query string }{
			{"blocked-variant-1280", "कित्ताब.भारत"},
			{"invalid-malayalam-1280", "ാകരളം.ഭാരതം"},
			{"valid-malayalam-1280", "കേരളം.ഭാരതം"},
		} {
			open(ctx, t, ts.URL+"/?name="+url.QueryEscape(tc.query))
			chromedp.Run(step(ctx), chromedp.WaitVisible(`#result[data-label]`, chromedp.ByQuery))
			shot(t, ctx, tc.name)
		}
	})

	t.Run("first verdict and transfer size", func(t *testing.T) {
		open(ctx, t, ts.URL+"/?name="+url.QueryEscape("हिंदी.भारत"))
		chromedp.Run(step(ctx), chromedp.WaitVisible(`body[data-first-verdict-ms]`, chromedp.ByQuery))
		ms := attr(ctx, t, "body", "data-first-verdict-ms")
		var sizes map[string]float64
		if err := chromedp.Run(step(ctx), chromedp.Evaluate(`Object.fromEntries(performance.getEntries().filter(e => e.transferSize !== undefined).map(e => [e.name.replace(location.origin, ""), e.transferSize]))`, &sizes)); err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, s := range sizes {
			total += s
		}
		b, _ := json.Marshal(sizes)
		t.Logf("first verdict %s ms after the navigation started; %d bytes transferred: %s", ms, int(total), b)
		if total == 0 {
			t.Error("no transfer measured")
		}
	})

	t.Run("Hindi interface", func(t *testing.T) {
		open(ctx, t, ts.URL+"/?name="+url.QueryEscape("हिंदी.भारत"))
		chromedp.Run(step(ctx), chromedp.WaitVisible(`#result[data-label]`, chromedp.ByQuery))
		if err := chromedp.Run(step(ctx), chromedp.Click("#ui-lang", chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "hindi-interface-420")
		if h := text(ctx, t, "h1"); h != "डोमेन नाम जाँचें" {
			t.Errorf("title %q", h)
		}
		if v := text(ctx, t, "#verdict"); !strings.Contains(v, "उपलब्ध") {
			t.Errorf("verdict %q", v)
		}
		chromedp.Run(step(ctx), chromedp.Click("#ui-lang", chromedp.ByID)) // back to English
	})

	t.Run("server unreachable", func(t *testing.T) {
		ts.Close()
		if err := chromedp.Run(step(ctx),
			chromedp.SendKeys("#label", "क", chromedp.ByID),
			chromedp.WaitVisible("#offline", chromedp.ByID),
		); err != nil {
			t.Fatal(err)
		}
		shot(t, ctx, "offline-420")
		if m := text(ctx, t, "#offline"); !strings.Contains(m, "cannot be reached") {
			t.Errorf("offline message %q", m)
		}
	})
}
