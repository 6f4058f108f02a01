package akshara

import (
	"strings"
	"sync"
	"sync/atomic"
)

// The product automaton of a script's languages, for Detector: one state
// is the tuple of every language's grammar state (or "dead": a rule
// broken, or a code point outside its repertoire), and one step per code
// point advances them all. The states reachable from real labels are few,
// so it is built lazily, as labels reach new states, and read without
// locks (a transition, once set, never changes). Past maxProductStates it
// stops growing and Detector walks each language instead.

const (
	maxProductStates = 1 << 12 // real labels reach about 200 (Devanagari, 830,000 words)
	productChunk     = 256
	productSymbols   = 130 // block offsets 0-127, digit, hyphen
	deadState        = 0xFFFF
)

type productState struct {
	trans  [productSymbols]atomic.Int32 // next state + 1; 0: not built yet
	accept uint64                       // languages (local index) alive in an accepting state
	tuple  []uint16
}

type product struct {
	langs    []*Language
	trigger  [productSymbols]uint64 // languages for which the symbol triggers a context rule
	varStart [productSymbols]uint64 // ... starts a variant sequence
	halant   [productSymbols]uint64 // ... is a halant
	halants  []string               // every language's halants and nuktas as text (mayHaveTriple)
	nuktas   []string

	mu     sync.Mutex
	ids    map[string]int32 // tuple → state (under mu)
	n      int32            // states built (under mu)
	max    int32            // maxProductStates (less in tests)
	chunks [maxProductStates / productChunk]atomic.Pointer[[productChunk]productState]
}

func newProduct(langs []*Language) *product {
	p := &product{langs: langs, ids: map[string]int32{}, max: maxProductStates}
	for i, l := range langs {
		for o := 0; o < productSymbols; o++ {
			w := l.walkInfo[o]
			if w&walkTrigger != 0 {
				p.trigger[o] |= 1 << i
			}
			if w&walkVarStart != 0 {
				p.varStart[o] |= 1 << i
			}
			if kind(w&walkKind) == kind(H) {
				p.halant[o] |= 1 << i
			}
		}
	}
	seen := map[string]bool{}
	for _, l := range langs {
		for _, h := range l.halantUTF8 {
			if !seen[h] {
				seen[h] = true
				p.halants = append(p.halants, h)
			}
		}
		for _, n := range l.nuktaUTF8 {
			if !seen[n] {
				seen[n] = true
				p.nuktas = append(p.nuktas, n)
			}
		}
	}
	start := make([]uint16, len(langs)) // every language's start state is 0
	p.mu.Lock()
	p.add(start)
	p.mu.Unlock()
	return p
}

func (p *product) state(id int32) *productState {
	return &p.chunks[id/productChunk].Load()[id%productChunk]
}

// add interns a tuple (under mu); -1 when the automaton is full.
func (p *product) add(tuple []uint16) int32 {
	key := tupleKey(tuple)
	if id, ok := p.ids[key]; ok {
		return id
	}
	if p.n == p.max {
		return -1
	}
	id := p.n
	c := id / productChunk
	if p.chunks[c].Load() == nil {
		p.chunks[c].Store(new([productChunk]productState))
	}
	st := &p.chunks[c].Load()[id%productChunk]
	st.tuple = tuple
	for i, l := range p.langs {
		if tuple[i] != deadState && l.ends[tuple[i]] == OK {
			st.accept |= 1 << i
		}
	}
	p.ids[key] = id
	p.n++
	return id
}

func tupleKey(t []uint16) string {
	var b strings.Builder
	b.Grow(2 * len(t))
	for _, v := range t {
		b.WriteByte(byte(v))
		b.WriteByte(byte(v >> 8))
	}
	return b.String()
}

// next returns the state after symbol o from state id, building it if
// needed; -1 when the automaton is full.
func (p *product) next(id int32, o uint8) int32 {
	st := p.state(id)
	if nx := st.trans[o].Load(); nx != 0 {
		return nx - 1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if nx := st.trans[o].Load(); nx != 0 {
		return nx - 1
	}
	tuple := make([]uint16, len(p.langs))
	for i, l := range p.langs {
		tuple[i] = deadState
		if s := st.tuple[i]; s != deadState {
			if k := kind(l.walkInfo[o] & walkKind); k != kindNone {
				if t := &l.table[s][k]; t.code == OK {
					tuple[i] = t.next
				}
			}
		}
	}
	nx := p.add(tuple)
	if nx < 0 {
		return -1
	}
	st.trans[o].Store(nx + 1)
	return nx
}

// run steps the automaton over the symbols and returns the languages
// (local index) whose grammar accepts them, and those for which a symbol
// triggers a context rule; ok is false when the automaton is full.
func (p *product) run(offs []uint8) (accept, trigger uint64, ok bool) {
	id := int32(0)
	for _, o := range offs {
		st := p.state(id)
		nx := st.trans[o].Load() - 1
		if nx < 0 {
			if nx = p.next(id, o); nx < 0 {
				return 0, 0, false
			}
		}
		id = nx
		trigger |= p.trigger[o]
	}
	return p.state(id).accept, trigger, true
}
