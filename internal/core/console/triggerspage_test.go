package console

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// listedRow is a row of the triggers list: its trigger's id.
var listedRow = regexp.MustCompile(`<tr id="trigger-([0-9a-f-]{36})">`)

// On a store of more triggers than a page shows, the triggers list shows
// triggersShown of them a page, says which and how many there are, and
// its next page shows the ones after, in the store's order, with a way
// back; a batch sent from the second page acts on the triggers ticked
// there and on no other, and its answer leads back to that page.
func TestTheTriggersListShowsAPageOfAHundredAndABatchActsOnlyOnTheTickedOnes(t *testing.T) {
	b := newBatchSite(t, nil)
	ctx := t.Context()
	for i := range 2*triggersShown + 7 {
		b.publishQuiet(t, fmt.Sprintf("filler-%03d", i), true)
	}
	all, next, err := b.st.TriggerList(ctx, schedule.TriggerListParams{Limit: triggersPage})
	if err != nil || next != "" || len(all) != 2*triggersShown+10 {
		t.Fatalf("the store lists %d triggers (next %q, %v); want the %d made", len(all), next, err, 2*triggersShown+10)
	}
	order := make([]string, len(all))
	for i, s := range all {
		order[i] = s.TriggerID
	}
	rows := func(page string) []string {
		var out []string
		for _, m := range listedRow.FindAllStringSubmatch(page, -1) {
			out = append(out, m[1])
		}
		return out
	}

	first := b.do(apitoken.Admin, "/triggers?lang=en", nil).Body.String()
	if got := rows(first); !slices.Equal(got, order[:triggersShown]) {
		t.Fatalf("the first page lists %d rows; want the store's first %d in its order", len(got), triggersShown)
	}
	if !strings.Contains(first, `<p id="triggers-count">Triggers 1–100 of 210 · page 1 of 3</p>`) || !strings.Contains(first, `id="next-page" rel="next" href="/triggers?page=2"`) || strings.Contains(first, `id="prev-page"`) {
		t.Fatalf("the first page does not say which of how many it shows, or lacks its next page's link or offers a previous one:\n%s", first)
	}
	second := b.do(apitoken.Admin, "/triggers?page=2&lang=zh", nil).Body.String()
	if got := rows(second); !slices.Equal(got, order[triggersShown:2*triggersShown]) {
		t.Fatalf("the second page lists %d rows; want the store's next %d in its order", len(got), triggersShown)
	}
	if !strings.Contains(second, `<p id="triggers-count">第 101–200 个触发器，共 210 个 · 第 2 页，共 3 页</p>`) ||
		!strings.Contains(second, `id="prev-page" rel="prev" href="/triggers?page=1">上一页</a>`) || !strings.Contains(second, `id="next-page" rel="next" href="/triggers?page=3">下一页</a>`) ||
		!strings.Contains(second, `<input type="hidden" name="page" value="2">`) {
		t.Fatalf("the second page lacks its place, its links both ways, or the batch form's page:\n%s", second)
	}
	if got := rows(b.do(apitoken.Admin, "/triggers?page=9", nil).Body.String()); !slices.Equal(got, order[2*triggersShown:]) {
		t.Errorf("a page past the last lists %d rows; want the last page's %d", len(got), len(order)-2*triggersShown)
	}

	ticked := []string{order[triggersShown+3], order[2*triggersShown-1]}
	w := b.do(apitoken.Operate, "/triggers/batch?lang=en", url.Values{"do": {"pause"}, "id": ticked, "page": {"2"}, "request": {ids.New()}})
	if got := batchLines(w.Body.String()); len(got) != 2 || !strings.Contains(w.Body.String(), `id="batch-back" href="/triggers?page=2"`) {
		t.Fatalf("the batch answered %d lines %q, or does not lead back to the second page:\n%s", len(got), got, w.Body.String())
	}
	for _, id := range order {
		d, err := b.st.TriggerDetail(ctx, id, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := slices.Contains(ticked, id); d.Paused != want {
			t.Errorf("%s/%s paused %v after the batch; want %v (ticked: %v)", d.ProjectName, d.Name, d.Paused, want, want)
		}
	}
}
