package storetest

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// testATriggerCountIsHowManyTheListingWalksTo: for every filter the
// listing takes — none, a project, a search in names and titles (its %,
// _ and \ matching only themselves), in a command, kept to titles, and
// bound to some projects — the store's count is the number of triggers
// its pages walk to, and it refuses an over-long search with the
// listing's reason.
func testATriggerCountIsHowManyTheListingWalksTo(t *testing.T, f Fixture) {
	applyText(t, f, "shop.yaml", searchFile)
	applyText(t, f, "depot.yaml", titledProjectFile)
	applyText(t, f, "jd.yaml", commandsFile)
	shop, err := f.Catalog.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []schedule.TriggerListParams{
		{}, {ProjectID: shop.ID}, {Search: "match"}, {Search: "SHOP/MATCH"}, {Search: "5%_"}, {Search: `:\T`}, {Search: "no such"},
		{Search: "jd_fruit.js --s"}, {Search: "JD_BEAN_SIGN"}, {Search: "match", TitlesOnly: true}, {Search: "match", InProjects: []string{"depot"}},
		{InProjects: []string{"shop", "jd"}}, {ProjectID: shop.ID, Search: "quiet"},
	} {
		walked, after := 0, ""
		for {
			q := p
			q.Limit, q.After = 2, after
			list, next, err := f.Status.TriggerList(t.Context(), q)
			if err != nil {
				t.Fatalf("list %+v: %v", q, err)
			}
			walked += len(list)
			if next == "" {
				break
			}
			after = next
		}
		if walked == 0 && p.Search != "no such" {
			t.Fatalf("%+v lists no trigger; the case proves nothing", p)
		}
		p.Limit, p.After = 1, after
		if got, err := f.Count.TriggerCount(t.Context(), p); err != nil || got != walked {
			t.Errorf("count of %+v (a limit and cursor given, which it ignores): %d, %v; want %d, as many as its pages list", p, got, err, walked)
		}
	}
	if _, err := f.Count.TriggerCount(t.Context(), schedule.TriggerListParams{Search: strings.Repeat("x", schedule.MaxSearch+1)}); qlerror.ReasonOf(err) != schedule.RefusalSearchTooLong {
		t.Errorf("count with an over-long search: %v; want it refused as %s", err, schedule.RefusalSearchTooLong)
	}
}
