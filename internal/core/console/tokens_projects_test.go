package console

import (
	"html"
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
