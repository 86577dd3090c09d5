package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
)

// The tokens page shows each token's projects, in the page's language
// "every project" for a token bound to none.
func TestTheTokensPageShowsEachTokensProjectsInBothLanguages(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withTokenAdmin)
	if _, _, err := apitoken.Create(t.Context(), site.st, "tester", ids.New(), "alpha-ci", apitoken.Operate, 0, "bravo", "alpha"); err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?s)<tr><td data-label="[^"]*">alpha-ci</td>.*?</tr>`)
	for l, want := range map[string][3]string{"en": {"Projects", "every project", "alpha, bravo"}, "zh": {"项目", "所有项目", "alpha、bravo"}} {
		page := html.UnescapeString(site.do(apitoken.Admin, "/tokens?lang="+l, nil).Body.String())
		if r := row.FindString(page); !strings.Contains(r, `<td data-label="`+want[0]+`">`+want[2]+`</td>`) {
			t.Errorf("%s: alpha-ci's row %q does not show its projects under %q", l, r, want[0])
		}
		if !strings.Contains(page, `<td data-label="`+want[0]+`">`+want[1]+`</td>`) {
			t.Errorf("%s: a token of every project is not shown as %q", l, want[1])
		}
	}
}

// The new-token form offers the projects to bind a token to, none chosen
// meaning every project: a token created with two of them is bound to
// those two (as `ql tokens create --project`), one created with none to
// every project, and a form refused for another field keeps its choice.
func TestTheTokenFormBindsANewTokenToTheProjectsChosen(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withTokenAdmin)
	page := site.do(apitoken.Admin, "/tokens?lang=zh", nil).Body.String()
	if !strings.Contains(page, `<label for="tok-projects">绑定项目（留空：全部项目）</label><select id="tok-projects" name="project" multiple`) || !strings.Contains(page, `<option value="shop">shop</option>`) {
		t.Fatalf("the Chinese token form offers no project to bind a token to:\n%s", page)
	}
	site.do(apitoken.Admin, "/tokens", url.Values{"name": {"shop-ci"}, "scope": {"operate"}, "project": {"shop", "later", "shop"}})
	site.do(apitoken.Admin, "/tokens", url.Values{"name": {"every"}, "scope": {"read"}})
	w := site.do(apitoken.Admin, "/tokens", url.Values{"name": {"Bad Name"}, "scope": {"read"}, "project": {"later"}})
	if body := w.Body.String(); w.Code != http.StatusBadRequest || !strings.Contains(body, `<option value="later" selected>later</option>`) {
		t.Errorf("a refused form: %d, want 400 with its project kept chosen:\n%s", w.Code, body)
	}
	tokens, err := site.st.TokenList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tk := range tokens {
		got[tk.Name] = tk.ProjectsText()
	}
	if got["shop-ci"] != "later,shop" || got["every"] != "every project" || got["Bad Name"] != "" {
		t.Errorf("tokens after the forms: %v; want shop-ci bound to later and shop, every to every project, and no Bad Name", got)
	}
}
