package akshara

//go:generate go run ./internal/gen/idnatable -in testdata/idna2008/Idna2008-15.0.0.txt -version 15.0.0 -out idna2008_table.go

import "sort"

// IDNAProperty is a code point's IDNA2008 derived property (RFC 5892 §2).
type IDNAProperty uint8

// The IDNA2008 derived property values.
const (
	Unassigned IDNAProperty = iota
	PVALID
	ContextJ
	ContextO
	Disallowed
)

var idnaPropertyNames = [...]string{"UNASSIGNED", "PVALID", "CONTEXTJ", "CONTEXTO", "DISALLOWED"}

func (p IDNAProperty) String() string {
	if int(p) < len(idnaPropertyNames) {
		return idnaPropertyNames[p]
	}
	return "IDNAProperty(?)"
}

type idnaRange struct {
	lo, hi rune
	prop   IDNAProperty
}

// IDNA2008 returns the IDNA2008 derived property of r (Unicode IDNA2008Version).
// Values outside U+0000..U+10FFFF are Disallowed.
func IDNA2008(r rune) IDNAProperty {
	if r < 0 || r > 0x10FFFF {
		return Disallowed
	}
	i := sort.Search(len(idna2008Ranges), func(i int) bool { return idna2008Ranges[i].hi >= r })
	return idna2008Ranges[i].prop
}
