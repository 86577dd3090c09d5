package httpapi

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// A whole number too large for its field (1e30, twenty nines) is refused
// as out of range, naming the range the field takes in the one form of
// every range refusal; a fraction is still "not a whole number".
func TestAWholeNumberTooLargeForItsFieldIsOutOfRangeNotAFraction(t *testing.T) {
	t.Parallel()
	h, tok := reasonsServer(t, Limits{}, true)
	target := "/api/v1/triggers/" + someID + "/backfill"
	for _, c := range []struct{ body, want string }{
		{`{"fromMs":1e30,"toMs":0}`, "fromMs: 1e30 is out of range: it takes -62167219200000 to 253402300799999"},
		{`{"fromMs":0,"toMs":-99999999999999999999}`, "toMs: -99999999999999999999 is out of range: it takes -62167219200000 to 253402300799999"},
		{`{"fromMs":0,"toMs":0,"max":1e30}`, "max: 1e30 is out of range: it takes 1 to "},
	} {
		status, a, _ := ask(t, h, refusal{name: c.body, method: "POST", target: target, token: tok["operate"], contentType: "application/json", body: c.body})
		if status != 400 || a.Error.Reason != validate.RefusalOutOfRange || !strings.HasPrefix(a.Error.Message, c.want) {
			t.Errorf("%s: %d reason %q %q; want 400 %q %q", c.body, status, a.Error.Reason, a.Error.Message, validate.RefusalOutOfRange, c.want)
		}
	}
	status, a, _ := ask(t, h, refusal{name: "a fraction", method: "POST", target: target, token: tok["operate"], contentType: "application/json", body: `{"fromMs":1.5,"toMs":0}`})
	if status != 400 || a.Error.Reason != RefusalBodyFieldType || !strings.Contains(a.Error.Message, "a whole number") {
		t.Errorf("a fraction: %d reason %q %q; want 400 %q saying a whole number", status, a.Error.Reason, a.Error.Message, RefusalBodyFieldType)
	}
}
