package subscription

import (
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalCharacter is a field holding a character that shows as no text
// of its own or reorders the text around it (crontab.Unseen): field
// ("subscription name", url, branch, match or exclude), char (U+XXXX). The value is not
// echoed: a URL's may carry a token.
const RefusalCharacter qlerror.Reason = "subscription_character"

// checkCharacters refuses value, the form's field, when it holds a
// character that shows as no text of its own or reorders the text around
// it (crontab.Unseen, the converter's rule), naming the first.
func checkCharacters(field, value string) error {
	c, ok := crontab.FirstUnseen(value)
	if !ok {
		return nil
	}
	return qlerror.New(qlerror.Invalid, "%s holds %U, a control or format character (a text-direction override, a zero-width space and the like), which shows as no text "+
		"or reorders the text around it, so that what a page shows would not be what git and the scripts folder read: remove it and type the %s again", fieldWords[field], c, fieldWords[field]).
		Because(RefusalCharacter, "field", field, "char", fmt.Sprintf("%U", c))
}

// fieldWords are the form's fields as a refusal names them.
var fieldWords = map[string]string{"subscription name": "the subscription's name", "url": "the repository URL", "branch": "the branch", "match": "match", "exclude": "exclude"}

// refusedURL is u as a refusal shows it: without the credentials it
// carries (Redacted), and, when Redacted finds none, without what is
// before its last '@' (after its scheme's "://") when that holds a ':',
// a user and password written in a form git does not read
// (https:/user:token@host, user:token@host:path,
// https://user:to/ken@host): a refusal never shows a token, however the
// URL was mistyped.
func refusedURL(u string) string {
	if r := Redacted(u); r != u {
		return r
	}
	at := strings.LastIndex(u, "@")
	if at < 0 {
		return u
	}
	start := 0
	if i := strings.Index(u[:at], "://"); i >= 0 {
		start = i + 3
	}
	if !strings.Contains(u[start:at], ":") {
		return u
	}
	return u[:start] + "…@" + u[at+1:]
}
