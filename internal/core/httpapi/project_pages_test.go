package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// TestTheProjectListingPagesPastItsLimitAndNamesEachProjectsID: GET
// /api/v1/projects answers each project with its id, and with more
// projects than a page holds it answers next, the cursor ?after= takes
// for the page after; walked from the first page to the last, every
// project is listed once, in name order, on both profiles' stores. A
// smaller ?limit= pages the same way.
func TestTheProjectListingPagesPastItsLimitAndNamesEachProjectsID(t *testing.T) {
	t.Parallel()
	withManyProjects(t, func(t *testing.T, st catalog.DefinitionsReader, publish func(doc string)) {
		publish(clustertest.Triggers("own", 1, clustertest.QuietCron()))
		tokens, _ := tokenStore(t)
		every, _, err := apitoken.Create(t.Context(), tokens, "tester", ids.New(), "all-ci", apitoken.Read, 0)
		if err != nil {
			t.Fatal(err)
		}
		h := NewHandler(Config{Export: st, Tokens: tokens, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
		list := func(query url.Values) view.ProjectList {
			t.Helper()
			req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/api/v1/projects?"+query.Encode(), nil)
			req.Host = "localhost"
			req.Header.Set("Authorization", "Bearer "+every)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var l view.ProjectList
			if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil || rec.Code != http.StatusOK {
				t.Fatalf("GET /api/v1/projects?%s: %d %s", query.Encode(), rec.Code, rec.Body)
			}
			return l
		}
		own, err := st.ProjectDefinitions(t.Context(), "own", 1)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		pages := 0
		for q := (url.Values{}); ; pages++ {
			l := list(q)
			for _, p := range l.Projects {
				if p.ID == "" || (p.Name == "own" && p.ID != own.Project.ID) {
					t.Fatalf("project %s is listed with id %q; want its own (own's is %s)", p.Name, p.ID, own.Project.ID)
				}
				names = append(names, p.Name)
			}
			if l.Next == "" {
				if l.More {
					t.Fatalf("page %d says there are more and gives no next", pages+1)
				}
				break
			}
			if pages == 0 && (len(l.Projects) != view.ProjectListLimit || l.Next != l.Projects[len(l.Projects)-1].Name) {
				t.Fatalf("the first page: %d projects, next %q; want %d, next its last name", len(l.Projects), l.Next, view.ProjectListLimit)
			}
			q = url.Values{"after": {l.Next}}
		}
		if want := boundProjectsFirst + 1; pages != 1 || len(names) != want || !slices.IsSorted(names) || slices.Compact(slices.Clone(names))[want-1] != "own" {
			t.Fatalf("walked %d pages after the first, %d projects (sorted %v, last %q); want 1 page after, all %d projects once, own last",
				pages, len(names), slices.IsSorted(names), names[len(names)-1], want)
		}
		l := list(url.Values{"after": {"aaa-00003"}, "limit": {"2"}})
		var got []string
		for _, p := range l.Projects {
			got = append(got, p.Name)
		}
		if strings.Join(got, ",") != "aaa-00004,aaa-00005" || l.Next != "aaa-00005" {
			t.Fatalf("?after=aaa-00003&limit=2: %v, next %q; want aaa-00004,aaa-00005, next aaa-00005", got, l.Next)
		}
	})
}
