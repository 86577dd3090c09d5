package schedule

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// TestEveryReasonHasOneOutcomeAndIsDocumented keeps the closed set honest:
// each reason goes with raced, failed or unavailable (never a success), is
// found again by its code, and appears in docs/architecture.md's reason
// table with that same outcome and where it is reached — so the page an
// operator reads cannot drift from what the adapters return, nor the
// metrics' series at 0 (Reasons) from the stores that give them.
func TestEveryReasonHasOneOutcomeAndIsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[Reason]Outcome{}
	clusterRows := map[Reason]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| (raced|failed|unavailable) \\|.*\\| (both|cluster)[^|]*\\|$").FindAllStringSubmatch(string(doc), -1) {
		documented[Reason(m[1])] = Outcome(m[2])
		clusterRows[Reason(m[1])] = m[3] == "cluster"
	}
	single := Reasons(false)
	if len(Reasons(true)) != len(reasonOutcomes) {
		t.Errorf("the cluster's reasons are %d of the %d", len(Reasons(true)), len(reasonOutcomes))
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
		if slices.Contains(single, r) == clusterRows[r] {
			t.Errorf("docs/architecture.md says %s is reached on the cluster only: %v; Reasons(false) holds it: %v", r, clusterRows[r], slices.Contains(single, r))
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
