package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// refusal is one request the console refuses with a store's or a core
// package's error: its English page shows the error's own words (en), its
// Chinese page the console's sentence for the reason (zh) and none of them.
type refusal struct {
	what, method, path string
	form               url.Values
	en, zh             string
}

// check asks r in both languages and compares each page with its sentence.
func (r refusal) check(t *testing.T, site *consoleSite, c *http.Client, csrf string) {
	t.Helper()
	for _, l := range []string{"en", "zh"} {
		var form url.Values
		if r.method == http.MethodPost {
			form = url.Values{"csrf": {csrf}}
			for k, v := range r.form {
				form[k] = v
			}
		}
		sep := "?"
		if strings.Contains(r.path, "?") {
			sep = "&"
		}
		resp, page := httpcall.Form(t, c, r.method, site.base+r.path+sep+"lang="+l, form)
		if resp.StatusCode < 400 {
			t.Errorf("%s (%s): answered %d, want a refusal", r.what, l, resp.StatusCode)
			continue
		}
		switch {
		case l == "en" && !strings.Contains(page, asShown(r.en)):
			t.Errorf("%s: the English page does not say %q:\n%s", r.what, r.en, page)
		case l == "zh" && (!strings.Contains(page, asShown(r.zh)) || strings.Contains(page, asShown(r.en))):
			t.Errorf("%s: the Chinese page does not say %q, or still says %q:\n%s", r.what, r.zh, r.en, page)
		}
	}
}

// A refusal the console shows from a store or a core package — run now of
// a disabled trigger, of an archived project's or of one that does not
// exist, a re-run of an unfinished or missing Run, a pause note too long
// or not plain text, a token's scope, expiry or name, a revoke of no token,
// a time or attempt that cannot be read or an attempt the Run lacks, a runs filter whose state, trigger
// or window is none, a Run or trigger that does not
// exist or an id that is none, a sign-in form without its CSRF
// token — reads in Chinese on a Chinese
// page, with none of the English sentence, and as it always did in English.
func TestAConsoleRefusalIsShownInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	trig := "/triggers/" + site.triggerID

	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+trig+"/disable", url.Values{"csrf": {csrf}}); !tookForm(resp) {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	refusal{"run now of a disabled trigger", http.MethodPost, trig + "/run", nil,
		"is disabled: nothing of it runs", "触发器“nightly”已停用，立即运行与回填也不执行"}.check(t, site, c, csrf)
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+trig+"/enable", url.Values{"csrf": {csrf}}); !tookForm(resp) {
		t.Fatalf("enable: %d", resp.StatusCode)
	}

	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+trig+"/run", url.Values{"csrf": {csrf}})
	running := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(running, "/runs/") {
		t.Fatalf("run now: %d to %q", resp.StatusCode, running)
	}
	defer httpcall.Form(t, c, http.MethodPost, site.base+running+"/cancel", url.Values{"csrf": {csrf}})

	for _, r := range []refusal{
		{"run now of a trigger that does not exist", http.MethodPost, "/triggers/" + ids.New() + "/run", nil,
			"does not exist; `ql triggers list` shows the triggers", "该触发器不存在"},
		{"re-run of an unfinished Run", http.MethodPost, running + "/rerun", nil,
			"only a finished Run can be re-run", "该运行尚未结束"},
		{"re-run of a Run that does not exist", http.MethodPost, "/runs/" + ids.New() + "/rerun", nil,
			"(retention may have deleted it)", "该运行不存在"},
		{"a pause note too long", http.MethodPost, trig + "/pause", url.Values{"note": {strings.Repeat("n", schedule.MaxPauseNote+1)}},
			"shorten it", "备注过长"},
		{"a pause note of two lines", http.MethodPost, trig + "/pause", url.Values{"note": {"one\x1btwo"}},
			"a note is one line of plain text", "备注只能是一行纯文本"},
		{"a token scope that is none", http.MethodPost, "/tokens", url.Values{"name": {"ci"}, "scope": {"root"}},
			"is not one of read, operate, admin", "权限范围须是"},
		{"a token expiry that cannot be read", http.MethodPost, "/tokens", url.Values{"name": {"ci"}, "scope": {"read"}, "expires": {"soon"}},
			"is not a duration from 1m to 3650d: write a number with a unit", "有效期“soon”无效，须是 1m 到 3650d 之间的时长"},
		{"a token name of capitals", http.MethodPost, "/tokens", url.Values{"name": {"CI"}, "scope": {"read"}},
			"must use lower-case letters", "令牌名称“CI”只能使用小写字母"},
		{"a token name an active token holds", http.MethodPost, "/tokens", url.Values{"name": {"console-read"}, "scope": {"read"}},
			"An active token named", "已有同名且未吊销的令牌"},
		{"a revoke of no token", http.MethodPost, "/tokens/nosuch/revoke", nil,
			"no unrevoked token is named", "没有该名称且未吊销的令牌"},
		{"a runs filter time that is none", http.MethodGet, "/runs?from=yesterday", nil,
			"is not a date and time like", "时间无法识别"},
		{"a runs filter state that is none", http.MethodGet, "/runs?state=bogus", nil,
			`The state filter &#34;bogus&#34; is not a state a Run can be in`, "状态筛选“bogus”不是运行可能处于的状态"},
		{"a runs filter trigger no trigger is named", http.MethodGet, "/runs?trigger=daily", nil,
			`no trigger is named &#34;daily&#34;`, "没有名为“daily”的触发器"},
		{"a runs filter trigger of a project that does not exist", http.MethodGet, "/runs?trigger=other/nightly", nil,
			`no project is named &#34;other&#34;`, "没有名为“other”的项目"},
		{"a runs filter window that is reversed", http.MethodGet, "/runs?from=2026-11-30T08:00&to=2026-11-29T08:00", nil,
			"give from before to", "时间窗口的起始时间不早于截止时间"},
		{"an attempt that is no number", http.MethodGet, running + "?attempt=first", nil,
			"is not an attempt number", "不是有效的尝试序号"},
		{"a Run that does not exist", http.MethodGet, "/runs/" + ids.New(), nil,
			"list runs with `ql runs list`", "该运行不存在"},
		{"a cancel of a Run that does not exist", http.MethodPost, "/runs/" + ids.New() + "/cancel", nil,
			"list runs with `ql runs list`", "该运行不存在"},
		{"a pause of a trigger that does not exist", http.MethodPost, "/triggers/" + ids.New() + "/pause", nil,
			"`ql triggers list` shows the triggers", "该触发器不存在"},
		{"a trigger that does not exist", http.MethodGet, "/triggers/" + ids.New(), nil,
			"`ql triggers list` shows the triggers", "该触发器不存在"},
		{"a trigger id that is none", http.MethodGet, "/triggers/not-an-id", nil, "give a trigger id", "这不是触发器 ID"},
		{"run now of a trigger id that is none", http.MethodPost, "/triggers/not-an-id/run", nil, "give a trigger id", "这不是触发器 ID"},
		{"a pause of a trigger id that is none", http.MethodPost, "/triggers/not-an-id/pause", nil, "give a trigger id", "这不是触发器 ID"},
		{"a run id that is none", http.MethodGet, "/runs/not-an-id", nil, "give a run id", "这不是运行 ID"},
		{"a cancel of a run id that is none", http.MethodPost, "/runs/not-an-id/cancel", nil, "give a run id", "这不是运行 ID"},
		{"a re-run of a run id that is none", http.MethodPost, "/runs/not-an-id/rerun", nil, "give a run id", "这不是运行 ID"},
	} {
		r.check(t, site, c, csrf)
	}
	waitFor(t, "the Run's first attempt", 10*time.Second, func() bool {
		resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+running+"?attempt=1", nil)
		return resp.StatusCode == http.StatusOK
	})
	refusal{"an attempt the Run does not have", http.MethodGet, running + "?attempt=9", nil,
		"has no attempt 9; its attempts are 1", "该运行没有第 9 次尝试；它的尝试序号为 1。"}.check(t, site, c, csrf)
	// A browser that never loaded the sign-in form has no sign-in CSRF cookie.
	refusal{"a sign-in without the form's CSRF cookie", http.MethodPost, "/signin", url.Values{"token": {site.tokens[apitoken.Read]}},
		"the sign-in form is missing its CSRF token", "登录表单缺少 CSRF 令牌"}.check(t, site, consoleClient(t), csrf)

	site.archiveShop(t)
	refusal{"run now of an archived project's trigger", http.MethodPost, trig + "/run", nil,
		"belongs to an archived project", "所属的项目已归档"}.check(t, site, c, csrf)
	refusal{"a disable of an archived project's trigger", http.MethodPost, trig + "/disable", nil,
		"its project is archived, and an archived project", "它所属的项目已归档"}.check(t, site, c, csrf)
}
