package akshara

import (
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
)

// The language files are compiled into the binary.
//
//go:embed languages/*.lang
var languageFiles embed.FS

// ErrUnknownLanguage is returned for a language tag that has no policy.
var ErrUnknownLanguage = errors.New("akshara: unknown language")

type entry struct {
	file string
	once sync.Once
	lang *Language
	err  error
}

var registry struct {
	once    sync.Once
	byTag   map[string]*entry
	tags    []string
	loadErr error
}

func loadRegistry() {
	registry.byTag = map[string]*entry{}
	names, err := languageFiles.ReadDir("languages")
	if err != nil {
		registry.loadErr = err
		return
	}
	for _, n := range names {
		tag := strings.TrimSuffix(n.Name(), ".lang")
		registry.byTag[strings.ToLower(tag)] = &entry{file: path.Join("languages", n.Name())}
		registry.tags = append(registry.tags, tag)
	}
	sort.Strings(registry.tags)
}

func (e *entry) load() (*Language, error) {
	e.once.Do(func() {
		data, err := languageFiles.ReadFile(e.file)
		if err != nil {
			e.err = err
			return
		}
		e.lang, e.err = LoadLanguage(e.file, data)
		if e.err == nil && !strings.HasSuffix(e.file, "/"+e.lang.Tag+".lang") {
			e.err = fmt.Errorf("%s: the file declares language %q; it must be named %s.lang", e.file, e.lang.Tag, e.lang.Tag)
		}
	})
	return e.lang, e.err
}

// LoadLanguage parses and compiles a language file (languages/README.md
// gives the format). The embedded languages are loaded with it; it is
// exported for tools that check a new language file.
func LoadLanguage(name string, data []byte) (*Language, error) {
	sp, err := parseLangFile(name, data)
	if err != nil {
		return nil, err
	}
	sp.digest = fmt.Sprintf("%x", sha256.Sum256(data))
	return compile(name, sp)
}

// Lookup returns the language with the given tag (case-insensitive), such as
// "hi" or "sd-Deva". An unknown tag gives an error wrapping
// ErrUnknownLanguage.
func Lookup(tag string) (*Language, error) {
	registry.once.Do(loadRegistry)
	if registry.loadErr != nil {
		return nil, registry.loadErr
	}
	e, ok := registry.byTag[strings.ToLower(tag)]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownLanguage, tag, strings.Join(registry.tags, ", "))
	}
	return e.load()
}

// Tags returns the tags of every language with a policy, sorted.
func Tags() []string {
	registry.once.Do(loadRegistry)
	return append([]string(nil), registry.tags...)
}

// Languages returns every language, sorted by tag.
func Languages() ([]*Language, error) {
	var ls []*Language
	for _, t := range Tags() {
		l, err := Lookup(t)
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// Check checks label against the policy of the language with the given tag.
func Check(label, tag string) (*Result, error) {
	l, err := Lookup(tag)
	if err != nil {
		return nil, err
	}
	return l.Check(label), nil
}
