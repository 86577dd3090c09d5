package apitoken

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"
)

// secretChars is the length of a token after Prefix: its secret in
// unpadded base64url.
var secretChars = base64.RawURLEncoding.EncodedLen(secretBytes)

// ShapeProblem says what keeps s from being a token, "" when nothing
// does: the prefix missing, the wrong length (a token cut short when it
// was copied starts with the prefix, and "tokens start with qlt_" would
// send its user looking for the wrong fault), or a character a token never
// holds. It never repeats s, which may be most of a secret.
func ShapeProblem(s string) string {
	shape := fmt.Sprintf("a token is %s and %d more letters, digits, '-' or '_'", Prefix, secretChars)
	body, ok := strings.CutPrefix(s, Prefix)
	switch {
	case !ok:
		return "it does not start with " + Prefix + "; " + shape
	case len(body) != secretChars:
		return fmt.Sprintf("it has %d characters after %s, and %s: copy all of it", utf8.RuneCountInString(body), Prefix, shape)
	}
	if _, err := base64.RawURLEncoding.DecodeString(body); err != nil {
		return "it holds a character no token has; " + shape
	}
	return ""
}
