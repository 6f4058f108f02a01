package akshara

import "unicode"

// scriptInfo is what the engine knows of a script: its Unicode script
// property and its main block, which the fast tables cover.
type scriptInfo struct {
	code  string // ISO 15924
	table *unicode.RangeTable
	block rune // first code point of the 128-code-point block
}

var scripts = map[string]scriptInfo{
	"Deva": {"Deva", unicode.Devanagari, 0x0900},
	"Beng": {"Beng", unicode.Bengali, 0x0980},
	"Guru": {"Guru", unicode.Gurmukhi, 0x0A00},
	"Gujr": {"Gujr", unicode.Gujarati, 0x0A80},
	"Orya": {"Orya", unicode.Oriya, 0x0B00},
	"Taml": {"Taml", unicode.Tamil, 0x0B80},
	"Telu": {"Telu", unicode.Telugu, 0x0C00},
	"Knda": {"Knda", unicode.Kannada, 0x0C80},
	"Mlym": {"Mlym", unicode.Malayalam, 0x0D00},
}
