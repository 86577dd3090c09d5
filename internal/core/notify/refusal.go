package notify

import "errors"

// maxRefusalLen bounds a reason of QingLong's own words: a secret the
// secrets store refuses, naming its file and the command that sets it,
// which a cut at maxErrorLen would leave a command that cannot be pasted
// when the file's path is long. The stores' column takes 2000 bytes.
const maxRefusalLen = 1500

// secretsRefused is the secrets store's refusal of a channel's secrets:
// no receiver was asked, and nothing of an answer is quoted.
type secretsRefused struct{ err error }

func (e secretsRefused) Error() string { return e.err.Error() }
func (e secretsRefused) Unwrap() error { return e.err }

// reasonOf is the reason kept on a failed notification's row: the
// receiver's status and a little of its answer within maxErrorLen, the
// secrets store's refusal whole up to maxRefusalLen.
func reasonOf(err error) string {
	s := err.Error()
	if refused := (secretsRefused{}); !errors.As(err, &refused) {
		return truncate(s)
	}
	if len(s) <= maxRefusalLen {
		return s
	}
	return s[:cutPoint(s, maxRefusalLen)] + "…"
}
