package console

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/crontab"
)

// Folders differing only by case are one folder, as a file system
// ignoring case (macOS's, Windows') keeps them: a subscription into
// o7_r_a after one into o7_r_A (another name: repo-o7-r_a, repo-o7-r-a),
// or into o8_r_a/b inside O8_r_a, is refused as taken, and the converter
// leaves the second such ql repo line out by the same rule.
func TestFoldersDifferingOnlyByCaseAreOneFolderToTheFormAndTheConverter(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for _, c := range []struct {
		first, second [2]string
		other, folder string
	}{
		{[2]string{"https://github.com/o7/r.git", "A"}, [2]string{"https://github.com/o7/r_a.git", ""}, "repo-o7-r-a", "o7_r_A"},
		{[2]string{"https://github.com/O8/r_a.git", ""}, [2]string{"https://github.com/o8/r.git", "a/b"}, "repo-o8-r_a", "O8_r_a"},
	} {
		if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", c.first[0], c.first[1])); w.Code != http.StatusOK {
			t.Fatalf("%v: the first: %d\n%s", c.first, w.Code, w.Body)
		}
		w := site.do(apitoken.Admin, "/subscriptions/new?lang=en", subscriptionForm("shop", c.second[0], c.second[1]))
		page := html.UnescapeString(w.Body.String())
		if want := "the subscription " + c.other + " (project jd) pulls into the folder " + c.folder + " already"; w.Code != http.StatusConflict || !strings.Contains(page, want) {
			t.Errorf("%v after %v: %d, want 409 saying %q:\n%s", c.second, c.first, w.Code, want, page)
		}
		lines := `0 0 * * * ql repo ` + c.first[0] + ` "" "" "" "` + c.first[1] + `"` + "\n" + `0 1 * * * ql repo ` + c.second[0] + ` "" "" "" "` + c.second[1] + `"` + "\n"
		res, err := crontab.Convert(strings.NewReader(lines), crontab.Options{Zone: "Asia/Shanghai"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 1 || len(res.Problems) == 0 || res.Problems[len(res.Problems)-1].Code != crontab.CodeRepoRepeated {
			t.Errorf("%v after %v: the converter made %d tasks, problems %+v; want the second line left out as repeating the first's folder", c.second, c.first, len(res.Entries), res.Problems)
		}
	}
}
