package cli

import (
	"unicode"

	"golang.org/x/text/width"
)

// displayWidth is how many columns a terminal gives s, text already
// escaped (userText, so no control character is left): two for each
// East Asian wide or fullwidth character (CJK ideographs, kana, Hangul,
// fullwidth forms, most emoji), none for a combining mark or a format
// character (a zero-width joiner, a variation selector), one for the
// rest. Ambiguous characters count one, as terminals outside CJK locales
// show them.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
