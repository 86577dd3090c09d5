// Package shellquote writes a value into a command line a message tells
// someone to paste into a POSIX shell.
package shellquote

import (
	"strings"
	"unicode"
)

// Quote is s as one shell word: as it is when the shell would read it
// unchanged (letters, digits and - _ . / : , + = @ %), else in single
// quotes, a single quote in it ending them, escaped with a backslash, and
// opening them again. A data directory with a space or a $ in a command
// pasted as printed would otherwise be split, or expanded.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_./:,+=@%", r)
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
