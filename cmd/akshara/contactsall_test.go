package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestContactRequiredEveryFrontEnd (issue 34 item 4): a create without
// the contacts its zone requires (भारत: registrant, admin, tech) is
// refused with CONTACT_REQUIRED on every front end — HTTP 422 with the
// code, EPP 2003, the CLI exit 1 naming the code, the import's name
// refused with the code — by a real "akshara serve" and the real
// commands; with each front end's explicit exemption (serve
// -contacts-exempt http,epp; domain create -contacts-exempt; import
// -contacts-exempt) the same creates succeed. Without exemptions, a name
// imported with a contacts file shows its registrant in RDAP and WHOIS.
func TestContactRequiredEveryFrontEnd(t *testing.T) {
	for _, exempt := range []bool{false, true} {
		name := map[bool]string{false: "bound", true: "exempt"}[exempt]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "r.db")
			token, stderr, code := runCLI(t, "", "registrar", "add", "-db", db, "acme")
			if code != exitOK {
				t.Fatalf("registrar add: %s", stderr)
			}
			token = strings.TrimSpace(token)
			if _, stderr, code := runCLI(t, "secret12\n", "registrar", "epp-password", "-db", db, "acme"); code != exitOK {
				t.Fatalf("epp-password: %s", stderr)
			}
			args := []string{"serve", "-addr", "127.0.0.1:0", "-epp", "127.0.0.1:0", "-db", db}
			if exempt {
				args = append(args, "-contacts-exempt", "http,epp")
			}
			httpURL, eppAddr, whoisAddr := serveAll(t, args...)

			// the four front ends, each creating a name without contacts
			type result struct {
				refused bool   // refused with CONTACT_REQUIRED
				got     string // what the front end answered
			}
			frontEnds := []struct {
				name   string
				create func() result
			}{
				{"http", func() result {
					req, _ := http.NewRequest("POST", httpURL+"/v1/domains", strings.NewReader(`{"name":"कमल.भारत","lang":"hi"}`))
					req.Header.Set("Authorization", "Bearer "+token)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					got := resp.Status + " " + string(body)
					if resp.StatusCode == 201 {
						return result{false, got}
					}
					return result{resp.StatusCode == 422 && strings.Contains(string(body), `"code":"CONTACT_REQUIRED"`), got}
				}},
				{"epp", func() result {
					r := eppCreate(t, eppAddr, "acme", "secret12", "नदी.भारत")
					if strings.Contains(r, `<result code="1000">`) {
						return result{false, r}
					}
					return result{strings.Contains(r, `<result code="2003">`), r}
				}},
				{"cli", func() result {
					a := []string{"domain", "create", "-db", db, "-registrar", "acme"}
					if exempt {
						a = append(a, "-contacts-exempt")
					}
					out, stderr, code := runCLI(t, "", append(a, "गगन.भारत")...)
					got := out + stderr
					if code == exitOK {
						return result{false, got}
					}
					return result{code == exitInvalid && strings.Contains(stderr, "CONTACT_REQUIRED"), got}
				}},
				{"import", func() result {
					file, refused := filepath.Join(dir, "names.csv"), filepath.Join(dir, "refused.jsonl")
					os.WriteFile(file, []byte("name\nपानी\n"), 0o644)
					a := []string{"import", "-db", db, "-zone", "भारत", "-registrar", "acme", "-refused", refused, "-no-progress"}
					if exempt {
						a = append(a, "-contacts-exempt")
					}
					out, stderr, code := runCLI(t, "", append(a, file)...)
					rf, _ := os.ReadFile(refused)
					got := out + stderr + string(rf)
					if code == exitOK && strings.Contains(out, "registered          1") {
						return result{false, got}
					}
					return result{code == exitInvalid && strings.Contains(string(rf), `"code":"CONTACT_REQUIRED"`), got}
				}},
			}
			for _, fe := range frontEnds {
				r := fe.create()
				if r.refused == exempt || (!r.refused && !exempt) {
					want := "refused with CONTACT_REQUIRED"
					if exempt {
						want = "accepted (exempt)"
					}
					t.Errorf("%s: a create without contacts: %s; want it %s", fe.name, r.got, want)
				}
			}
			if exempt {
				return
			}

			// bound: a contacts file and contact columns import a name
			// that meets the policy, and RDAP and WHOIS show its registrant
			contacts, names := filepath.Join(dir, "contacts.csv"), filepath.Join(dir, "names2.csv")
			os.WriteFile(contacts, []byte(strings.ReplaceAll(registrytest.ImportContactsFile, ",alpha,", ",acme,")), 0o644)
			os.WriteFile(names, []byte("name,registrant,admin,tech\nकिताब,ac-2,ac-1,ac-1\n"), 0o644)
			out, stderr, code := runCLI(t, "", "import", "-db", db, "-zone", "भारत", "-registrar", "acme", "-contacts", contacts, "-create-registrars", "-no-progress", names)
			// xc-1 (BAD_CONTACT) is refused: exit 1, the name imported (beta, its
			// registrar, created with its contact)
			if code != exitInvalid || !strings.Contains(out, "registered          1") || !strings.Contains(out, "3 created, 0 there already, 1 refused") {
				t.Fatalf("import with contacts: exit %d\n%s%s", code, out, stderr)
			}
			resp, err := http.Get(httpURL + "/rdap/domain/xn--11b4aya5ed.xn--h2brj9c")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), `"handle":"ac-2"`) || !strings.Contains(string(body), `"registrant"`) {
				t.Errorf("RDAP of the imported name: %d %s", resp.StatusCode, body)
			}
			c, err := net.Dial("tcp", whoisAddr)
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(20 * time.Second))
			io.WriteString(c, "किताब.भारत\r\n")
			w, _ := io.ReadAll(c)
			c.Close()
			if !strings.Contains(string(w), "Registrant ID: ac-2\r\n") {
				t.Errorf("WHOIS of the imported name has no registrant ac-2:\n%s", w)
			}
		})
	}
}

// serveAll runs "akshara serve" with args and WHOIS in a child process and
// returns its HTTP URL, EPP and WHOIS addresses.
func serveAll(t *testing.T, args ...string) (httpURL, eppAddr, whoisAddr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1", "AKSHARA_WHOIS=127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	for httpURL == "" || eppAddr == "" || whoisAddr == "" {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("server output: %v\n%s", err, stderr.String())
		}
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "listening on "); ok {
			httpURL = v
		}
		if v, ok := strings.CutPrefix(line, "EPP on "); ok {
			eppAddr = strings.TrimSuffix(v, " (TLS)")
		}
		if v, ok := strings.CutPrefix(line, "WHOIS on "); ok {
			whoisAddr = v
		}
	}
	return httpURL, eppAddr, whoisAddr
}

// eppCreate logs in over EPP and sends a domain create of name without
// contacts; it returns the create's response.
func eppCreate(t *testing.T, addr, clID, pw, name string) string {
	t.Helper()
	c := dialEPP(t, addr) // revoke_test.go
	if r := c.do(`<login><clID>` + clID + `</clID><pw>` + pw + `</pw><options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI><objURI>urn:ietf:params:xml:ns:contact-1.0</objURI></svcs></login>`); !strings.Contains(r, `code="1000"`) {
		t.Fatalf("login: %s", r)
	}
	return c.do(`<create><domain:create xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + name + `</domain:name><domain:authInfo><domain:pw>2fooBAR!xQ7wK4pL</domain:pw></domain:authInfo></domain:create></create><clTRID>T-1</clTRID>`)
}
