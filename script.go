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
	// The Arabic block is 256 code points: the fast tables cover its first
	// half, and the letters of U+0680..U+06FF (ٹ ڈ ڑ ک گ ں ھ ہ ی ے …) take
	// the slower path through Language.extra.
	"Arab": {"Arab", unicode.Arabic, 0x0600},
	"Olck": {"Olck", unicode.Ol_Chiki, 0x1C00},     // Ol Chiki U+1C50..U+1C7F
	"Mtei": {"Mtei", unicode.Meetei_Mayek, 0xAB80}, // Meetei Mayek U+ABC0..U+ABFF
}
