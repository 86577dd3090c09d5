package console

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A search on the triggers list finds a trigger the unfiltered list's
// first page does not hold: the store searches every trigger, not the
// page the console fetched.
func TestATriggerSearchShowsAMatchBeyondTheFirstPage(t *testing.T) {
	b := newBatchSite(t, nil)
	for i := range triggersPage {
		b.publishQuiet(t, fmt.Sprintf("filler-%d", i), false)
	}
	late := b.publishQuiet(t, "late", false)
	page := b.do(apitoken.Read, "/triggers?q=LATE", nil).Body.String()
	if listRow(page, late) == "" {
		t.Fatalf("the search for LATE does not show trigger late, created after the first %d triggers", triggersPage)
	}
	if listRow(page, b.triggers["a"]) != "" || strings.Contains(page, "after=") {
		t.Fatal("the search shows trigger a, which does not match, or offers a next page beyond its one match")
	}
}

// A search that finds no trigger says what it searched — names, titles
// and the task's script or command, not env values — with what was typed,
// in the page's language, rather than the bare "nothing here" of an empty
// list.
func TestATriggerSearchThatFindsNothingSaysWhatItSearched(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	for l, want := range map[string]string{
		"en": "No trigger's project, trigger or task name or title, nor its task's script or command, holds “jd_fruit.js<”; the search does not read env values.",
		"zh": "没有触发器的项目名、触发器名、任务名、标题或其任务的脚本、命令包含“jd_fruit.js<”；搜索不查环境变量的值。",
	} {
		page := site.do(apitoken.Read, "/triggers?q=jd_fruit.js%3C&lang="+l, nil).Body.String()
		if !strings.Contains(html.UnescapeString(page), `<td colspan="6" id="triggers-none">`+want+"</td>") || !strings.Contains(page, "jd_fruit.js&lt;") {
			t.Errorf("%s: the empty search does not say %q:\n%s", l, want, page)
		}
	}
	if page := site.do(apitoken.Read, "/triggers?q=report", nil).Body.String(); strings.Contains(page, `id="triggers-none"`) {
		t.Errorf("a search that finds a trigger says it found none:\n%s", page)
	}
}
