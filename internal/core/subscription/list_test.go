package subscription

import (
	"fmt"
	"testing"
)

// List reads the subscriptions of every project, however many pages of
// projects' names a site has: a subscription of a project past the first
// page is listed, and so found and counted against a new one's folder
// (Find and Save read List).
func TestListReadsTheSubscriptionsOfProjectsPastTheFirstPage(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	for i := 1; i <= 5; i++ {
		applyText(t, svc, fmt.Appendf(nil, "project: p%d\ntasks:\n  - name: repo-o-r%d\n    script: \"true\"\n    labels: {subscription/url: \"https://example.com/o/r%d.git\"}\n", i, i, i))
	}
	subs, err := list(t.Context(), st, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 5 {
		t.Fatalf("listed %d subscriptions (%+v); want the 5 of the 5 projects, 2 to a page", len(subs), subs)
	}
	for i, s := range subs {
		if want := fmt.Sprintf("p%d", i+1); s.Project != want || s.Folder != fmt.Sprintf("o_r%d", i+1) {
			t.Errorf("subscription %d: %+v; want project %s's, in project order", i, s, want)
		}
	}
}
