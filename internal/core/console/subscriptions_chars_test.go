package console

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/subscription"
)

// unseenCharacters are characters that show as no text or reorder the
// text around them: a text-direction override and isolate, a zero-width
// space, the byte-order mark, a C1 control (NEL), a line separator, a C0
// control.
var unseenCharacters = []rune{'\u202e', '\u2066', '\u200b', '\ufeff', '\u0085', '\u2028', '\a'}

// subscriptionErrors is the refusals block of a subscription form's page.
func subscriptionErrors(page string) string {
	return regexp.MustCompile(`(?s)<div class="errors" id="sub-errors".*?</div>`).FindString(page)
}

// The subscription form refuses a control or format character in the
// URL, branch, match or exclude (a U+202E would show o/r\u202Egpj.exe as
// o/rexe.jpg), and in the name an edit, delete or pull sends, naming the
// field and the character in English and Chinese; nothing is published.
func TestTheSubscriptionFormRefusesControlAndFormatCharactersInEachField(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", "https://github.com/o/r.git", "")); w.Code != http.StatusOK {
		t.Fatalf("the add: %d\n%s", w.Code, w.Body)
	}
	zh := map[string]string{"url": "仓库地址", "branch": "分支", "match": "匹配规则", "exclude": "排除规则"}
	for _, c := range unseenCharacters {
		char := fmt.Sprintf("%U", c)
		for field, value := range map[string]string{"url": "https://github.com/o/r" + string(c) + "gpj.exe.git", "branch": "ma" + string(c) + "in", "match": "jd" + string(c) + "_", "exclude": "b" + string(c) + "ak"} {
			f := subscriptionForm("shop", "https://github.com/o2/r.git", "")
			f.Set(field, value)
			for l, want := range map[string]string{"en": "holds " + char + ", a control or format character", "zh": zh[field] + " 含有 " + char + "，这是控制或格式字符"} {
				w := site.do(apitoken.Admin, "/subscriptions/new?lang="+l, f)
				if errs := html.UnescapeString(subscriptionErrors(w.Body.String())); w.Code != http.StatusBadRequest || !strings.Contains(errs, want) {
					t.Errorf("%s %s (%s): %d %s; want 400 saying %q", field, char, l, w.Code, errs, want)
				}
			}
		}
		name := "repo-o-r" + string(c)
		edit := subscriptionForm("jd", "https://github.com/o/r.git", "")
		edit.Set("name", name)
		for path, form := range map[string]url.Values{"/subscriptions/edit": edit, "/subscriptions/delete": {"name": {name}}, "/subscriptions/pull": {"name": {name}}} {
			w := site.do(apitoken.Admin, path+"?lang=en", form)
			if page := html.UnescapeString(w.Body.String()); w.Code != http.StatusBadRequest || !strings.Contains(page, "the subscription's name holds "+char) {
				t.Errorf("%s of %q: %d; want 400 naming the name's %s:\n%s", path, name, w.Code, char, page)
			}
		}
	}
	if subs := subscription.Of(definitionsOf(t, site, "shop")); len(subs) != 0 {
		t.Errorf("a refused form published %+v", subs)
	}
}

// No page of a refused subscription form holds a URL's token, in
// English or Chinese, however the URL was written or mistyped: neither
// the refusals nor the URL's box, which shows the URL without it and
// says to type it again; a URL refused itself (of no form, a space, a
// control character, over-long, naming no owner, its user and token
// written in a form git does not read) or sent with another field
// refused.
func TestASubscriptionRefusalNeverShowsTheURLsToken(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	const token = "ghp_S3CRET"
	for _, c := range []struct{ url, branch, match, cron string }{
		{"ftp://bot:" + token + "@host/o/r.git", "", "", "6 * * * *"},
		{"https:/bot:" + token + "@host/o/r.git", "", "", "6 * * * *"},
		{"bot:" + token + "@host:o/r.git", "", "", "6 * * * *"},
		{"https://bot:" + token + "@host/o/r\u202e.git", "", "", "6 * * * *"},
		{"https://bot:" + token + " x@host/o/r.git", "", "", "6 * * * *"},
		{"https://bot:" + token + "@host/" + strings.Repeat("o", 300) + "/r.git", "", "", "6 * * * *"},
		{"https://bot:" + token + "@host/r.git", "", "", "6 * * * *"},
		{"https:///bot:" + token + "@host/o/r.git", "", "", "6 * * * *"},
		{"https://bot:" + token + "@host/o/r.git", "a..b", "(", "61 * * * *"},
	} {
		f := subscriptionForm("jd", c.url, c.branch)
		f.Set("match", c.match)
		f.Set("cron", c.cron)
		for l, retype := range map[string]string{"en": "type them into the URL again", "zh": "保存前请在地址中重新输入"} {
			w := site.do(apitoken.Admin, "/subscriptions/new?lang="+l, f)
			page := w.Body.String()
			if w.Code != http.StatusBadRequest || subscriptionErrors(page) == "" || strings.Contains(html.UnescapeString(page), token) || strings.Contains(page, token) {
				t.Errorf("%q (%s): %d; want a refusal whose page holds no token:\n%s", c.url, l, w.Code, page)
			}
			if !strings.Contains(html.UnescapeString(page), retype) {
				t.Errorf("%q (%s): the page does not ask for the token again (%q)", c.url, l, retype)
			}
		}
	}
}
