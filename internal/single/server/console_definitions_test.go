package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// shopTrigger is the site's project with its task and trigger as the file
// a user edits: the trigger at line 6, its fields from line 8.
const shopTrigger = "project: shop\ntasks:\n  - name: report\n    script: echo\ntriggers:\n  - name: nightly\n    task: report\n"

// A definitions file a user gets wrong reads, on the Chinese page, in
// Chinese at its line, naming the field and the value and what to write,
// with none of the English sentence; the English page says it as the CLI
// and the API do. Both the preview and the apply step say it.
func TestADefinitionsFilesMistakeReadsInThePagesLanguageAtItsLine(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	for _, f := range []struct {
		what, yaml, at, zh, en string
	}{
		{"a YAML syntax error", shopTrigger + "    cron: */5 * * * *\n    timezone: UTC\n", "第 8 行",
			// The decoder's words are quoted in the Chinese sentence.
			"YAML 语法错误（解析器原文：“did not find expected alphabetic or numeric character”）", "</span>: did not find expected"},
		{"an unknown field", shopTrigger + "    cron: '0 3 * * *'\n    timezone: UTC\n    colour: red\n", "第 10 行第 5 列",
			"触发器：没有名为“colour”的字段", `unknown field &#34;colour&#34;`},
		{"a required field missing", shopTrigger + "    cron: '0 3 * * *'\n", "第 6 行", "trigger.timezone：缺少这个必填字段", "trigger.timezone: is required"},
		{"a cron field out of range", shopTrigger + "    cron: '0 3 * * 7'\n    timezone: UTC\n", "第 8 行",
			"cron 表达式的星期字段“7”无效", "day-of-week field"},
		{"a time zone of none", shopTrigger + "    cron: '0 3 * * *'\n    timezone: Asia/Beijing\n", "第 9 行",
			"未知的 IANA 时区“Asia/Beijing”", "unknown IANA timezone"},
		{"a duration in days", strings.Replace(shopTrigger, "script: echo", "script: echo\n    timeout: 1d", 1) + "    cron: '0 3 * * *'\n    timezone: UTC\n",
			"第 5 行", "task.timeout：“1d”无效，须是 1ms 到 8760h 之间的时长", "is not a duration in whole milliseconds"},
		{"a policy outside its range", shopTrigger + "    cron: '0 3 * * *'\n    timezone: UTC\n    jitter: 2h\n", "第 10 行",
			"trigger.jitter：“2h”无效，须是 0s 到 1h 之间的时长", "from 0s to 1h"},
		{"a policy outside its set", shopTrigger + "    cron: '0 3 * * *'\n    timezone: UTC\n    overlap: wait\n", "第 10 行",
			"trigger.overlap：“wait”不是可选的值；可选：allow, skip, queue_one, cancel_previous", "is not one of allow"},
		{"a task that does not exist", strings.Replace(shopTrigger, "task: report", "task: reprot", 1) + "    cron: '0 3 * * *'\n    timezone: UTC\n", "第 6 行",
			"触发器“nightly”：它的 task“reprot”不是本文件中定义的任务", "is not a task of this file"},
		{"a task defined twice", strings.Replace(shopTrigger, "triggers:", "  - name: report\n    script: echo\ntriggers:", 1) + "    cron: '0 3 * * *'\n    timezone: UTC\n",
			"第 5 行", "任务“report”定义了两次", "is defined twice"},
		{"a trigger moved to another task", strings.Replace(shopTrigger, "report", "weekly", 2) + "    cron: '0 3 * * *'\n    timezone: UTC\n", "第 6 行",
			"触发器“nightly”已绑定到另一个任务", "is bound to another task"},
	} {
		for _, step := range []string{"/definitions/preview", "/definitions/apply"} {
			form := url.Values{"csrf": {csrf}, "yaml": {f.yaml}}
			resp, page := httpcall.Form(t, c, http.MethodPost, site.base+step+"?lang=zh", form)
			errs := defErrors(page)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errs, `<span class="line">`+f.at) ||
				!strings.Contains(errs, f.zh) || strings.Contains(errs, f.en) {
				t.Errorf("%s, %s in Chinese: %d, want 400 saying at %s %q without %q:\n%s", f.what, step, resp.StatusCode, f.at, f.zh, f.en, errs)
			}
			resp, page = httpcall.Form(t, c, http.MethodPost, site.base+step+"?lang=en", form)
			if errs := defErrors(page); resp.StatusCode != http.StatusBadRequest || !strings.Contains(errs, f.en) {
				t.Errorf("%s, %s in English: %d, want 400 saying %q:\n%s", f.what, step, resp.StatusCode, f.en, errs)
			}
		}
	}
}

// defErrors is the definitions page's list of errors (or the whole page
// when it has none).
func defErrors(page string) string {
	_, errs, ok := strings.Cut(page, `id="def-errors"`)
	if !ok {
		return page
	}
	errs, _, _ = strings.Cut(errs, "</div>")
	return errs
}

// A project the definitions page is asked for that does not exist is
// named in the page's language.
func TestTheDefinitionsPageNamesAMissingProjectInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=shopp&lang=zh", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "项目“shopp”不存在") || strings.Contains(page, "does not exist") {
		t.Errorf("a project that does not exist in Chinese: %d, want 404 naming it in Chinese:\n%s", resp.StatusCode, page)
	}
	resp, page = httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=shopp&lang=en", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "project &#34;shopp&#34; does not exist") {
		t.Errorf("a project that does not exist in English: %d, want 404 naming it:\n%s", resp.StatusCode, page)
	}
}
