package schedule

import (
	"os"
	"reflect"
	"regexp"
	"testing"
)

// TestEveryReasonHasOneOutcomeAndIsDocumented keeps the closed set honest:
// each reason goes with raced, failed or unavailable (never a success), is
// found again by its code, and appears in docs/architecture.md's reason
// table with that same outcome — so the page an operator reads cannot drift
// from what the adapters return.
func TestEveryReasonHasOneOutcomeAndIsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[Reason]Outcome{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| (raced|failed|unavailable) \\|").FindAllStringSubmatch(string(doc), -1) {
		documented[Reason(m[1])] = Outcome(m[2])
	}
	for r, o := range reasonOutcomes {
		if o != Raced && o != Failed && o != Unavailable {
			t.Errorf("reason %s goes with %s; a reason only explains raced, failed or unavailable", r, o)
		}
		if got, ok := ReasonOf(string(r)); !ok || got != r || !reflect.DeepEqual(got.Result(), CommitResult{Outcome: o, Reason: r}) {
			t.Errorf("reason %s is not found again by its code", r)
		}
		if documented[r] != o {
			t.Errorf("docs/architecture.md lists %s as %q, want a row | `%s` | %s |", r, documented[r], r, o)
		}
	}
	for r := range documented {
		if _, ok := ReasonOf(string(r)); !ok {
			t.Errorf("docs/architecture.md lists %s, which is no reason", r)
		}
	}
	if _, ok := ReasonOf("idempotency_conflict"); ok {
		t.Error("a code outside the set was accepted")
	}
	if Reason("idempotency_conflict").Outcome() != "" {
		t.Error("a code outside the set has an outcome")
	}
}
