package account

import (
	_ "embed"
	"strings"
	"unicode"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// The reasons of a new password refused for being weak, beside its
// length: one on the list of the most common passwords, and one that
// holds the user's name.
const (
	RefusalPasswordCommon  qlerror.Reason = "password_common"
	RefusalPasswordHasName qlerror.Reason = "password_has_name"
)

//go:embed common_passwords.txt
var commonPasswordsFile string

// commonPasswords is common_passwords.txt as a set.
var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(commonPasswordsFile, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			m[line] = true
		}
	}
	return m
}()

// isCommon reports whether p, in lower case, is on the list, as it is or
// once the digits and symbols at its end are taken off ("password123!"),
// and either of those once the usual stand-ins for letters are read as
// the letters ("p@55w0rd"): a guesser tries each variant right after the
// word. The end is taken off before the stand-ins are read, or
// "monkey2024" would read as "monkeyzoza".
func isCommon(p string) bool {
	p = strings.ToLower(p)
	base := strings.TrimRightFunc(p, func(r rune) bool { return !unicode.IsLetter(r) })
	for _, c := range []string{p, base} {
		if c == "" {
			continue
		}
		if commonPasswords[c] || commonPasswords[asI.Replace(c)] || commonPasswords[asL.Replace(c)] {
			return true
		}
	}
	return false
}

// asI and asL read the usual stand-ins for letters as the letters they
// stand for; "1", "!" and "|" stand for "i" as often as for "l", so each
// reading is tried.
var (
	asI = strings.NewReplacer(leetCommon("1", "i", "!", "i", "|", "i")...)
	asL = strings.NewReplacer(leetCommon("1", "l", "!", "l", "|", "l")...)
)

// leetCommon is the stand-ins both readings share, with more.
func leetCommon(more ...string) []string {
	return append([]string{"@", "a", "4", "a", "8", "b", "(", "c", "3", "e", "6", "g", "9", "g", "0", "o", "5", "s", "$", "s", "7", "t", "+", "t"}, more...)
}

// CheckNewPassword says what is wrong with a new password for the user
// name: CheckPassword's length, then whether it is one of the most common
// passwords or holds the name (in any case; a name shorter than
// nameInPasswordMin is too short to guess from, and would refuse every
// password holding its letters). A password set before this check keeps
// working: only a new one is refused.
func CheckNewPassword(name, p string) error {
	if err := CheckPassword(p); err != nil {
		return err
	}
	if isCommon(p) {
		return qlerror.New(qlerror.Invalid, "the password is one of the most common passwords, which anyone guessing tries first; choose another "+
			"(a few unrelated words make a long password that is easy to remember)").Because(RefusalPasswordCommon)
	}
	if len([]rune(name)) >= nameInPasswordMin && strings.Contains(strings.ToLower(p), strings.ToLower(name)) {
		return qlerror.New(qlerror.Invalid, "the password contains the user name %q, which anyone guessing tries first; choose one without it", name).
			Because(RefusalPasswordHasName, "name", name)
	}
	return nil
}

// nameInPasswordMin is the shortest user name a password may not hold.
const nameInPasswordMin = 3
