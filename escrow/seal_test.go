package escrow_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/akshara-idn/akshara/escrow"
	"github.com/akshara-idn/akshara/registry"
)

// keys writes a fresh key pair's armored public and private keys into
// dir and returns their paths.
func keys(t *testing.T, dir, name string) (pub, priv string) {
	t.Helper()
	p, s, err := escrow.NewKey(name, name+"@example.test")
	must(t, "key", err)
	pub, priv = filepath.Join(dir, name+".pub.asc"), filepath.Join(dir, name+".sec.asc")
	must(t, "write", os.WriteFile(pub, p, 0o644))
	must(t, "write", os.WriteFile(priv, s, 0o600))
	return pub, priv
}

// TestSealGPG: a deposit sealed as Specification 2 asks (tar, compressed,
// encrypted to the agent's key, signed by the registry's) is opened by
// Open and by Debian's gpg (decrypt, verify); a wrong signature is
// refused with ESCROW_SIGNATURE by Open and by gpg.
func TestSealGPG(t *testing.T) {
	clock := registry.NewManualClock(T0)
	svc := service(t, stores(t)["sqlite"](t), clock)
	fixture(t, svc, clock)
	dir := t.TempDir()
	deps, err := escrow.Deposit(t.Context(), svc, escrow.Options{Watermark: clock.Now(), Dir: dir})
	must(t, "deposit", err)
	res := deps[0]
	agentPub, agentSec := keys(t, dir, "agent")
	regPub, regSec := keys(t, dir, "registry")
	_, otherSec := keys(t, dir, "other")
	load := func(p string) openpgp.EntityList {
		k, err := escrow.ReadKeys(p)
		must(t, "read keys "+p, err)
		return k
	}
	ryde, sig, err := escrow.Seal(res.File, load(agentPub), load(regSec))
	must(t, "seal", err)
	want, _ := os.ReadFile(res.File)
	out := t.TempDir()
	got, err := escrow.Open(ryde, load(regPub), load(agentSec), out)
	must(t, "open", err)
	if b, _ := os.ReadFile(got); !bytes.Equal(b, want) {
		t.Errorf("opened deposit differs from the deposit")
	}

	// signed by another key: refused
	wrong := filepath.Join(t.TempDir(), filepath.Base(ryde))
	b, _ := os.ReadFile(ryde)
	must(t, "copy", os.WriteFile(wrong, b, 0o644))
	_, wsig, err := escrow.Seal(res.File, load(agentPub), load(otherSec))
	must(t, "seal", err)
	sb, _ := os.ReadFile(wsig)
	must(t, "copy", os.WriteFile(filepath.Join(filepath.Dir(wrong), filepath.Base(sig)), sb, 0o644))
	ryde, _, err = escrow.Seal(res.File, load(agentPub), load(regSec)) // back to the good pair
	must(t, "seal", err)
	if _, err := escrow.Open(wrong, load(regPub), load(agentSec), t.TempDir()); registry.CodeOf(err) != escrow.CodeSignature {
		t.Errorf("open with a wrong signature: %v, want %s", err, escrow.CodeSignature)
	}

	gpg, err := exec.LookPath("gpg")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gpg is missing")
		}
		t.Skip("gpg missing: the deposit is not checked with gpg")
	}
	home, err := os.MkdirTemp("", "gnupg-")
	must(t, "gnupghome", err)
	t.Cleanup(func() {
		exec.Command("gpgconf", "--homedir", home, "--kill", "all").Run()
		os.RemoveAll(home)
	})
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(gpg, append([]string{"--homedir", home, "--batch", "--yes", "--no-tty", "--trust-model", "always"}, args...)...)
		return cmd.CombinedOutput()
	}
	for _, k := range []string{agentSec, regPub} {
		if out, err := run("--import", k); err != nil {
			t.Fatalf("gpg --import %s: %v\n%s", k, err, out)
		}
	}
	if out, err := run("--verify", sig, ryde); err != nil {
		t.Fatalf("gpg --verify: %v\n%s", err, out)
	}
	tarFile := filepath.Join(out, "deposit.tar")
	if out, err := run("--output", tarFile, "--decrypt", ryde); err != nil {
		t.Fatalf("gpg --decrypt: %v\n%s", err, out)
	}
	x, err := exec.Command("tar", "-xOf", tarFile).Output()
	must(t, "tar", err)
	if !bytes.Equal(x, want) {
		t.Errorf("gpg's decrypted deposit differs from the deposit")
	}
	if out, err := run("--verify", filepath.Join(filepath.Dir(wrong), filepath.Base(sig)), wrong); err == nil {
		t.Errorf("gpg --verify accepted a signature by another key:\n%s", out)
	}
}
