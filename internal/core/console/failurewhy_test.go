package console

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// Every reason a notification's delivery fails for has its sentence in
// both languages, and the languages have no sentence of a reason that is
// none; a row without a reason (an older build failed it) has none, so
// its page shows the detail alone.
func TestEveryNotificationFailureReasonHasASentenceInBothLanguages(t *testing.T) {
	for _, l := range []string{"en", "zh"} {
		for _, r := range notify.Reasons {
			if failureWhys[l][r] == "" {
				t.Errorf("%s has no sentence for a notification that failed for %s", l, r)
			}
		}
		if n := len(failureWhys[l]); n != len(notify.Reasons) {
			t.Errorf("%s has %d sentences for the %d reasons", l, n, len(notify.Reasons))
		}
		if failureWhy(l, "") != "" || failureWhy(l, "a_reason_of_a_newer_build") != "" {
			t.Errorf("%s: a row without a known reason has a sentence", l)
		}
	}
	if len(failureWhys) != len(messages) {
		t.Errorf("failure sentences in %d languages, the console speaks %d", len(failureWhys), len(messages))
	}
}
