package crontab

import (
	"strings"
	"testing"
)

// A ql raw line whose URL's password holds a '/', '?' or '#' ends its host
// there: the download would split no user and password off it, and the
// token would stay in the task's script. It is not converted, never
// repeating the token; the same password percent-encoded is converted
// with the token only in the task's env, never in its script.
func TestAQlRawLineWhoseCredentialsWouldNotBeReadIsNotConverted(t *testing.T) {
	t.Parallel()
	const token = "ghp_RAW5ECRET"
	for url, refused := range map[string]bool{
		"https://bot:" + token + "/x@example.com/d/jd_x.js":   true,
		"https://bot:" + token + "?x@example.com/d/jd_x.js":   true,
		"https://bot:" + token + "#x@example.com/d/jd_x.js":   true,
		"https://bot:" + token + "%2Fx@example.com/d/jd_x.js": false,
		"https://bot:" + token + "@example.com/d/jd_x.js":     false,
	} {
		res, err := Convert(strings.NewReader("0 0 * * * ql raw '"+url+"'\n"), Options{Zone: "UTC", ScriptsDir: "/srv/ql/scripts"})
		if err != nil {
			t.Fatal(err)
		}
		if !refused {
			if len(res.Entries) != 1 || strings.Contains(res.Entries[0].Script, token) {
				t.Errorf("%s: entries %+v problems %+v; want it converted with the token out of the script", url, res.Entries, res.Problems)
			}
			continue
		}
		if len(res.Entries) != 0 || len(res.Problems) != 1 {
			t.Errorf("%s: entries %+v problems %+v; want the line not converted", url, res.Entries, res.Problems)
			continue
		}
		if p := res.Problems[0]; p.Kind != NotConverted || p.Code != CodeRawCredentials || strings.Contains(p.Why, token) || !strings.Contains(p.Why, "%2F") {
			t.Errorf("%s: %+v; want not converted as %s saying to percent-encode, without the token", url, p, CodeRawCredentials)
		}
	}
}
