package console

import (
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/scripts"
)

var (
	scriptRowName = regexp.MustCompile(`<tr class="script-row[^"]*"><td data-label="[^"]*"><a href="[^"]*">([^<]*)</a>`)
	nextPageLink  = regexp.MustCompile(`id="next-page" href="([^"]*)"`)
)

// A folder of more entries than a page holds (a node_modules/.pnpm of
// tens of thousands) is listed a page at a time, folders first, then
// files, each by name, with a link to the next page; following the links
// lists every entry once.
func TestAFolderOfManyEntriesIsListedAPageAtATime(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	const folders, files = scripts.PageEntries - 3, 10
	var want []string
	for i := range folders {
		name := fmt.Sprintf("pkg-%04d", i)
		if err := os.MkdirAll(filepath.Join(site.dir, "nm", name), 0o755); err != nil {
			t.Fatal(err)
		}
		want = append(want, name+"/")
	}
	for i := range files {
		name := fmt.Sprintf("f-%02d.js", i)
		site.write(t, "nm/"+name, "x\n")
		want = append(want, name)
	}
	var got []string
	pages := 0
	for next := "/scripts?path=nm"; next != ""; pages++ {
		if pages > 2 {
			t.Fatalf("more pages than two for %d entries", len(want))
		}
		w := site.send(apitoken.Admin, next, nil)
		body := w.Body.String()
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d:\n%s", next, w.Code, body)
		}
		rows := scriptRowName.FindAllStringSubmatch(body, -1)
		if len(rows) > scripts.PageEntries {
			t.Fatalf("%s lists %d entries, over a page of %d", next, len(rows), scripts.PageEntries)
		}
		for _, r := range rows {
			got = append(got, html.UnescapeString(r[1]))
		}
		next = ""
		if m := nextPageLink.FindStringSubmatch(body); m != nil {
			next = html.UnescapeString(m[1])
			if !strings.Contains(html.UnescapeString(body), fmt.Sprintf("%d of the folder's %d entries", len(rows), len(want))) {
				t.Errorf("%s does not say how many of the folder's %d entries it lists:\n%s", next, len(want), body)
			}
		}
	}
	if pages != 2 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%d pages listed %d entries (first %q, last %q); want 2 pages of the %d entries in order", pages, len(got), got[0], got[len(got)-1], len(want))
	}
}
