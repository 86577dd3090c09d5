package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, on Chinese pages: the name input of the Secrets page
// and of the Tokens page accepts exactly the names the server does (its
// maxlength stops typing past the limit), a name the server would refuse
// is stopped by the browser before the form is sent, and the input's
// title, which the browser shows with its refusal, says in Chinese which
// names are allowed.
func TestTheSecretAndTokenNameInputsSayWhichNamesAreAllowedBeforeSending(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startSecretsSite(t, nil)
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	names := []string{"shop_api_key", "API.Key-2", "report", "a", "a.b-c_d", strings.Repeat("x", 128),
		"", "bad name", "bad/name", "Bad/name", "a//b", "/x", "名称", "-lead", "trail-", "_x", "x_", "Upper", "tab\tname"}
	js, err := json.Marshal(names)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		page, input, submit, title string
		server                     func(string) error
	}{
		{"/secrets", "sec-name", "sec-save", "密钥名称：1–128 个字母、数字、“_”、“.”或“-”；以“项目/”开头的密钥只有该项目可以引用。", process.CheckSecretName},
		{"/tokens", "tok-name", "tok-create", "令牌名称：1–128 个小写字母、数字、“-”、“_”或“.”，以字母或数字开头和结尾。",
			func(s string) error { return validate.Name("token name", s) }},
	} {
		browsertest.Step(t, ctx, "open "+f.page, chromedp.Navigate(site.base+f.page), chromedp.WaitVisible(chromedp.ID(f.input)))
		if got := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("`+f.input+`").title`)); got != f.title {
			t.Errorf("%s: the name input's title is %q; want %q", f.page, got, f.title)
		}
		accepted := browsertest.Value(t, ctx, chromedp.Evaluate[[]bool](`(() => { const i = document.getElementById("`+f.input+`");
			return `+string(js)+`.map(n => { i.value = n; return i.checkValidity(); }); })()`))
		for k, name := range names {
			if want := f.server(name) == nil; k >= len(accepted) || accepted[k] != want {
				t.Errorf("%s: the browser accepts %q: %v; the server: %v", f.page, name, k < len(accepted) && accepted[k], want)
			}
		}
		browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("`+f.input+`").value = ""`))
		browsertest.Step(t, ctx, "send a name with a space on "+f.page,
			chromedp.SendKeys(chromedp.ID(f.input), "bad name"),
			chromedp.Click(chromedp.ID(f.submit)))
		if stopped := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.activeElement.id === "`+f.input+`" &&
			document.getElementById("`+f.input+`").validity.patternMismatch && !document.querySelector("[role=alert]")`)); !stopped {
			t.Errorf("%s: a name with a space was not stopped by the browser at the name input", f.page)
		}
	}
}
