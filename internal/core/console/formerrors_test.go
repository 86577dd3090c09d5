package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/project"
)

// alertBlock is a page's part said as an alert, up to its end; alertItem
// one item of its list; markup any tag.
var (
	alertBlock = regexp.MustCompile(`(?s)role="alert"[^>]*>(.*?)</(?:p|ul)>`)
	alertItem  = regexp.MustCompile(`(?s)<li>(.*?)</li>`)
	markup     = regexp.MustCompile(`<[^>]*>`)
)

// formErrors are the errors page says as alerts, each as text: the items
// of a list, else the alert's own sentence.
func formErrors(page string) []string {
	var out []string
	for _, block := range alertBlock.FindAllStringSubmatch(page, -1) {
		items := alertItem.FindAllStringSubmatch(block[1], -1)
		if items == nil {
			items = [][]string{block}
		}
		for _, it := range items {
			out = append(out, html.UnescapeString(markup.ReplaceAllString(it[1], "")))
		}
	}
	return out
}

// Every error a console form says starts as a sentence does: in English
// with a capital, whether the words are the console's or the error's own
// (a token's expiry once started "expiry"), and in Chinese with no
// English word of lower case, a sentence the page has no Chinese for.
func TestEveryFormErrorStartsWithACapitalInEnglish(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) { withTokenAdmin(cfg); canPublish(cfg) })
	archived := newBatchSite(t, canPublish)
	shop, err := archived.st.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	shop.Status = project.Archived
	if _, err := archived.st.ProjectSave(t.Context(), shop); err != nil {
		t.Fatal(err)
	}
	task := url.Values{"project": {"shop"}, "task": {"report"}, "revision": {"1"}}
	with := func(base url.Values, kv ...string) url.Values {
		v := url.Values{}
		for k, vs := range base {
			v[k] = vs
		}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	for _, f := range []struct {
		what, path string
		form       url.Values
		on         *batchSite
	}{
		{"a token of every field wrong", "/tokens", url.Values{"name": {"Deploy Bot"}, "scope": {"root"}, "expires": {"soon"}}, nil},
		{"a token of an expiry out of range", "/tokens", url.Values{"name": {"deploy"}, "scope": {"read"}, "expires": {"30s"}}, nil},
		{"a token of a name taken", "/tokens", url.Values{"name": {"web-read"}, "scope": {"read"}}, nil},
		{"a new task of every field wrong", "/definitions/new", url.Values{"project": {"Reports Team"}, "task": {"daily report"}, "script": {"echo"},
			"cron": {"0 25 * * *"}, "timezone": {"Local"}, "timeout": {"1w"}}, nil},
		{"a new task of blank fields", "/definitions/new", url.Values{"project": {"shop"}, "task": {"fresh"}, "script": {" "}}, nil},
		{"a task edit of a blank script", "/definitions/task", with(task, "script", " "), nil},
		{"a task edit of a timeout in weeks", "/definitions/task", with(task, "script", "echo", "timeout", "1w"), nil},
		{"a schedule edit of an hour of none", "/definitions/schedule", url.Values{"project": {"shop"}, "trigger": {"a"}, "revision": {"1"}, "cron": {"0 25 * * *"}, "timezone": {"UTC"}}, nil},
		{"a backfill of bounds that are no times", "/triggers/" + site.triggers["a"] + "/backfill/preview", url.Values{"from": {"soon"}, "to": {"later"}}, nil},
		{"a new task in an archived project", "/definitions/new", url.Values{"project": {"shop"}, "task": {"later"}, "script": {"echo"}, "cron": {"* * * * *"}, "timezone": {"UTC"}}, archived},
	} {
		on := site
		if f.on != nil {
			on = f.on
		}
		for _, l := range []string{"en", "zh"} {
			w := on.do(apitoken.Admin, f.path+"?lang="+l, f.form)
			errs := formErrors(w.Body.String())
			if w.Code < http.StatusBadRequest || len(errs) == 0 {
				t.Errorf("%s in %s: %d with no error said, want the form's errors:\n%s", f.what, l, w.Code, w.Body)
				continue
			}
			for _, e := range errs {
				first, _ := utf8.DecodeRuneInString(strings.TrimSpace(e))
				if l == "en" && !unicode.IsUpper(first) || l == "zh" && first >= 'a' && first <= 'z' {
					t.Errorf("%s in %s: the error %q does not start as a sentence", f.what, l, e)
				}
			}
		}
	}
}
