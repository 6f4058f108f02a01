package escrow

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// The deposit as ICANN's Registry Agreement Specification 2 sends it
// (RyDE): the XML in a tar file, compressed and encrypted with OpenPGP to
// the escrow agent's public key (FILE.ryde, binary), and a detached
// OpenPGP signature of FILE.ryde by the registry's key (FILE.sig).

// ReadKeys reads an OpenPGP key ring (armored or binary) from a file.
func ReadKeys(path string) (openpgp.EntityList, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(b[:min(len(b), 64)], []byte("-----BEGIN PGP")) {
		return openpgp.ReadArmoredKeyRing(bytes.NewReader(b))
	}
	return openpgp.ReadKeyRing(bytes.NewReader(b))
}

// signer returns the first entity of keys with a private signing key.
func signer(keys openpgp.EntityList) (*openpgp.Entity, error) {
	for _, e := range keys {
		if e.PrivateKey != nil {
			if e.PrivateKey.Encrypted {
				return nil, fmt.Errorf("escrow: the signing key is protected by a passphrase (give one without, kept as a secret file)")
			}
			return e, nil
		}
	}
	return nil, fmt.Errorf("escrow: no private key to sign with")
}

var sealConfig = &packet.Config{DefaultCompressionAlgo: packet.CompressionZLIB, CompressionConfig: &packet.CompressionConfig{Level: 6}}

// Seal writes xmlPath's deposit as FILE.ryde (tar, compressed, encrypted to
// to) and FILE.sig (a detached signature of FILE.ryde by sign's private
// key) beside it, FILE the deposit's name without .xml, and returns the
// two paths. It streams: the deposit is never whole in memory.
func Seal(xmlPath string, to, sign openpgp.EntityList) (ryde, sig string, err error) {
	s, err := signer(sign)
	if err != nil {
		return "", "", err
	}
	base := strings.TrimSuffix(xmlPath, ".xml")
	ryde, sig = base+".ryde", base+".sig"
	in, err := os.Open(xmlPath)
	if err != nil {
		return "", "", err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return "", "", err
	}
	out, err := os.Create(ryde)
	if err != nil {
		return "", "", err
	}
	hints := &openpgp.FileHints{IsBinary: true, FileName: filepath.Base(base) + ".tar", ModTime: st.ModTime()}
	enc, err := openpgp.Encrypt(out, to, nil, hints, sealConfig)
	if err != nil {
		out.Close()
		return "", "", err
	}
	tw := tar.NewWriter(enc)
	if err := tw.WriteHeader(&tar.Header{Name: filepath.Base(xmlPath), Mode: 0o600, Size: st.Size(), ModTime: st.ModTime(), Format: tar.FormatUSTAR}); err != nil {
		out.Close()
		return "", "", err
	}
	if _, err := io.Copy(tw, in); err != nil {
		out.Close()
		return "", "", err
	}
	err = errors.Join(tw.Close(), enc.Close(), out.Sync(), out.Close())
	if err != nil {
		return "", "", err
	}
	r, err := os.Open(ryde)
	if err != nil {
		return "", "", err
	}
	defer r.Close()
	sf, err := os.Create(sig)
	if err != nil {
		return "", "", err
	}
	if err := openpgp.DetachSign(sf, s, r, &packet.Config{}); err != nil {
		sf.Close()
		return "", "", err
	}
	return ryde, sig, sf.Close()
}

// Open checks FILE.sig against FILE.ryde with the registry's public key
// (CodeSignature if it does not verify), decrypts FILE.ryde with the
// escrow agent's private key and writes the deposit's XML into dir,
// returning its path.
func Open(ryde string, verify, decrypt openpgp.EntityList, dir string) (string, error) {
	sig := strings.TrimSuffix(ryde, ".ryde") + ".sig"
	r, err := os.Open(ryde)
	if err != nil {
		return "", err
	}
	defer r.Close()
	sf, err := os.Open(sig)
	if err != nil {
		return "", errorf(CodeSignature, "%s: no signature: %v", ryde, err)
	}
	defer sf.Close()
	if _, err := openpgp.CheckDetachedSignature(verify, r, sf, &packet.Config{}); err != nil {
		if _, err2 := sf.Seek(0, io.SeekStart); err2 == nil {
			if _, err2 := r.Seek(0, io.SeekStart); err2 == nil {
				if ab, err3 := armor.Decode(sf); err3 == nil {
					_, err = openpgp.CheckDetachedSignature(verify, r, ab.Body, &packet.Config{})
				}
			}
		}
		if err != nil {
			return "", errorf(CodeSignature, "%s: the signature does not verify: %v", ryde, err)
		}
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	md, err := openpgp.ReadMessage(r, decrypt, nil, &packet.Config{})
	if err != nil {
		return "", errorf(CodeSignature, "%s: cannot decrypt: %v", ryde, err)
	}
	tr := tar.NewReader(md.UnverifiedBody)
	h, err := tr.Next()
	if err != nil {
		return "", errorf(CodeTruncated, "%s: %v", ryde, err)
	}
	name := filepath.Base(h.Name)
	if !strings.HasSuffix(name, ".xml") {
		return "", errorf(CodeSchema, "%s: the tar holds %q, not a deposit's XML", ryde, h.Name)
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, tr); err != nil {
		f.Close()
		return "", errorf(CodeTruncated, "%s: %v", ryde, err)
	}
	return path, f.Close()
}

// NewKey makes an OpenPGP key pair (tests, drills): armored public and
// private keys.
func NewKey(name, email string) (public, private []byte, err error) {
	e, err := openpgp.NewEntity(name, "akshara escrow", email, &packet.Config{Algorithm: packet.PubKeyAlgoRSA, RSABits: 2048, Time: time.Now})
	if err != nil {
		return nil, nil, err
	}
	var pub, priv bytes.Buffer
	w, err := armor.Encode(&pub, openpgp.PublicKeyType, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := e.Serialize(w); err != nil {
		return nil, nil, err
	}
	w.Close()
	w, err = armor.Encode(&priv, openpgp.PrivateKeyType, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := e.SerializePrivate(w, nil); err != nil {
		return nil, nil, err
	}
	w.Close()
	return pub.Bytes(), priv.Bytes(), nil
}
