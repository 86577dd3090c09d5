package subscription

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A URL naming no owner and repository is refused by the Subscriptions
// form and left out by the crontab converter alike, in the same words; a
// URL naming both is taken by both.
func TestTheFormAndTheConverterRefuseAURLWithoutAnOwnerAlike(t *testing.T) {
	for url, refused := range map[string]bool{
		"https://git.example.com/scripts.git":  true,
		"https://git.example.com/":             true,
		"git@git.example.com:scripts.git":      true,
		"https://git.example.com/o/scripts":    false,
		"git@git.example.com:o/scripts.git":    false,
		"ssh://git@git.example.com/o/s.git":    false,
		"file:///srv/git/owner/scripts.git":    false,
		"https://github.com/Owner/Scripts.git": false,
	} {
		errs, res := formAndLine(t, url)
		if !refused {
			if len(errs) != 0 || len(res.Entries) != 1 {
				t.Errorf("%s: form %v, converter %+v; want both to take it", url, errs, res.Problems)
			}
			continue
		}
		if len(errs) != 1 || qlerror.ReasonOf(errs[0]) != RefusalURLRepo {
			t.Errorf("%s: form %v; want %s", url, errs, RefusalURLRepo)
			continue
		}
		if len(res.Entries) != 0 || len(res.Problems) != 1 || res.Problems[0].Code != crontab.CodeRepoURL || res.Problems[0].Why != errs[0].Error() {
			t.Errorf("%s: converter %+v %+v; want it left out in the form's words %q", url, res.Entries, res.Problems, errs[0])
		}
	}
}

// A URL whose password holds a '/', '?' or '#' ends its host there: git
// reads no user and password in it, and neither would the masking of the
// pages, so the token would stay in the pull task's script, labels and
// audit record. The form and the converter refuse it, never repeating the
// token; a URL whose credentials are read, or with an '@' only in its
// path, is taken.
func TestAURLWhosePasswordEndsItsHostIsRefusedWithoutRepeatingTheToken(t *testing.T) {
	const token = "ghp_s3cr3t"
	for url, refused := range map[string]bool{
		"https://bot:" + token + "/x@git.example.com/o/scripts.git":   true,
		"https://bot:" + token + "?x@git.example.com/o/scripts.git":   true,
		"https://bot:" + token + "#x@git.example.com/o/scripts.git":   true,
		"https://bot:" + token + "%2Fx@git.example.com/o/scripts.git": false,
		"https://bot:" + token + "@git.example.com/o/scripts.git":     false,
		"https://git.example.com/o/scripts@v2.git":                    false,
	} {
		errs, res := formAndLine(t, url)
		if !refused {
			if len(errs) != 0 || len(res.Entries) != 1 {
				t.Errorf("%s: form %v, converter %+v; want both to take it", url, errs, res.Problems)
			}
			continue
		}
		if len(errs) != 1 || qlerror.ReasonOf(errs[0]) != RefusalURL || strings.Contains(errs[0].Error(), token) || !strings.Contains(errs[0].Error(), "%2F") {
			t.Errorf("%s: form %v; want %s saying to percent-encode, without the token", url, errs, RefusalURL)
		}
		if len(res.Entries) != 0 || len(res.Problems) != 1 || res.Problems[0].Code != crontab.CodeRepoCredentials || strings.Contains(res.Problems[0].Why, token) {
			t.Errorf("%s: converter %+v %+v; want it left out as %s, without the token", url, res.Entries, res.Problems, crontab.CodeRepoCredentials)
		}
	}
}

// formAndLine reads url as the subscription form does and as a crontab's
// ql repo line.
func formAndLine(t *testing.T, url string) ([]error, crontab.Result) {
	t.Helper()
	_, errs := Form{URL: url}.Check()
	res, err := crontab.Convert(strings.NewReader("0 0 * * * ql repo "+url+"\n"), crontab.Options{Zone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return errs, res
}
