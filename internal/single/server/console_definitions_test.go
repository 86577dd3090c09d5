package server

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
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
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, f := range []struct {
		what, yaml, at, zh, en string
	}{
		{"a YAML syntax error", shopTrigger + "    cron: */5 * * * *\n    timezone: UTC\n", "第 8 行",
			// The decoder's English words are left to the English page.
			"YAML 语法错误。请检查这一行", "</span>: did not find expected"},
		{"an unknown field", shopTrigger + "    cron: '0 3 * * *'\n    timezone: UTC\n    colour: red\n", "第 10 行第 5 列",
			"触发器：没有名为“colour”的字段", `unknown field &#34;colour&#34;`},
		{"a required field missing", shopTrigger + "    cron: '0 3 * * *'\n", "第 6 行", "trigger.timezone：缺少这个必填字段", "trigger.timezone: is required"},
		{"a cron field out of range", shopTrigger + "    cron: '0 3 * * 7'\n    timezone: UTC\n", "第 8 行",
			"cron 表达式的星期字段“7”无效", "day-of-week field"},
		{"a time zone of none", shopTrigger + "    cron: '0 3 * * *'\n    timezone: Asia/Beijing\n", "第 9 行",
			"未知的 IANA 时区“Asia/Beijing”", "unknown IANA timezone"},
		{"a duration in weeks", strings.Replace(shopTrigger, "script: echo", "script: echo\n    timeout: 1w", 1) + "    cron: '0 3 * * *'\n    timezone: UTC\n",
			"第 5 行", "task.timeout：“1w”无效，须是 1ms 到 365d 之间的时长", "is not a duration from 1ms to 365d"},
		{"a policy outside its range", shopTrigger + "    cron: '0 3 * * *'\n    timezone: UTC\n    jitter: 2h\n", "第 10 行",
			"trigger.jitter：“2h”无效，须是 0s 到 1h 之间的时长", "2h is out of range: it takes 0s to 1h"},
		{"a policy outside its set", shopTrigger + "    cron: '0 3 * * *'\n    timezone: UTC\n    overlap: wait\n", "第 10 行",
			"trigger.overlap：“wait”不是可选的值；可选：allow、skip、queue_one、cancel_previous", "is not one of allow"},
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

// Every mistake of a file is listed on the definitions page at once, each
// at its line (and column, where it is a field's) in the page's language,
// in file order, with their count; past 50 the rest are counted, not
// listed. Both the preview and the apply step list them.
func TestTheDefinitionsPageListsEveryMistakeOfAFileAtItsPlace(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	three := shopTrigger + "    cron: '0 3 * * 7'\n    timezone: Asia/Beijing\n" +
		"  - name: weekly\n    task: reprot\n    cron: '0 3 * * 1'\n    timezone: UTC\n"
	var many strings.Builder
	many.WriteString(strings.TrimSuffix(shopTrigger, "  - name: nightly\n    task: report\n"))
	for i := range 55 {
		fmt.Fprintf(&many, "  - {name: t%02d, task: report, cron: '61 * * * *', timezone: UTC}\n", i)
	}
	for _, f := range []struct {
		what, yaml, lang string
		items            int
		want             []string
	}{
		{"three mistakes", three, "zh", 3, []string{
			`<span class="line">第 8 行第 11 列</span>：触发器“nightly”：cron 表达式的星期字段“7”无效`,
			`<span class="line">第 9 行第 15 列</span>：触发器“nightly”：未知的 IANA 时区“Asia/Beijing”`,
			`<span class="line">第 10 行</span>：触发器“weekly”：它的 task“reprot”不是本文件中定义的任务`,
			"共 3 个错误。"}},
		{"three mistakes", three, "en", 3, []string{
			`<span class="line">line 8, column 11</span>: trigger &#34;nightly&#34;: trigger.cron: cron expression &#34;0 3 * * 7&#34;: day-of-week field`,
			`<span class="line">line 9, column 15</span>: trigger &#34;nightly&#34;: trigger.timezone: cron timezone &#34;Asia/Beijing&#34;`,
			`<span class="line">line 10</span>: trigger &#34;weekly&#34;: trigger.task &#34;reprot&#34; is not a task of this file`,
			"3 errors in all."}},
		{"55 mistakes", many.String(), "zh", 50, []string{`<span class="line">第 6 行第 37 列</span>`, `<span class="line">第 55 行第 37 列</span>`,
			"另有 5 个错误未列出，修正以上错误后会列出。", "共 55 个错误。"}},
		{"55 mistakes", many.String(), "en", 50, []string{`<span class="line">line 55, column 37</span>`,
			"And 5 more errors, listed once those above are fixed.", "55 errors in all."}},
	} {
		for _, step := range []string{"/definitions/preview", "/definitions/apply"} {
			form := url.Values{"csrf": {csrf}, "yaml": {f.yaml}}
			resp, page := httpcall.Form(t, c, http.MethodPost, site.base+step+"?lang="+f.lang, form)
			errs := defErrors(page)
			if resp.StatusCode != http.StatusBadRequest || strings.Count(errs, "<li>") != f.items {
				t.Errorf("%s, %s in %s: %d with %d errors listed, want 400 listing %d:\n%s", f.what, step, f.lang, resp.StatusCode, strings.Count(errs, "<li>"), f.items, errs)
				continue
			}
			at := 0
			for _, w := range f.want {
				i := strings.Index(errs[at:], w)
				if i < 0 {
					t.Errorf("%s, %s in %s: %q is not listed after what comes before it:\n%s", f.what, step, f.lang, w, errs)
					break
				}
				at += i + len(w)
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

// A name no project can have, asked for on the definitions page, is
// said to be no project name, in the page's language, without the
// missing project's advice to write it in a file (project: NAME), which
// would be refused.
func TestTheDefinitionsPageSuggestsNoProjectNameThatWouldBeRefused(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	for lang, want := range map[string]string{"zh": "项目“Bad Name”不存在：这不是有效的项目名称", "en": "it is not a project name"} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=Bad%20Name&lang="+lang, nil)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, want) || strings.Contains(page, "project: Bad Name") {
			t.Errorf("a project name none can have in %s: %d, want 404 saying %q and no file to write:\n%s", lang, resp.StatusCode, want, page)
		}
	}
}

// notedFile is a valid file of the site's project that `ql apply` notes
// three things of: its task sets retry (which a single node stores but
// never acts on), its trigger's jitter is longer than its period, and it
// names a secret (api_token) besides one the secrets file defines.
const notedFile = "project: shop\ntasks:\n  - name: report\n    script: echo\n    placement: {labels: {region: eu}}\n" +
	"    env: {TOKEN: {secret: api_token}, KEY: {secret: defined_key}}\n" +
	"triggers:\n  - name: nightly\n    task: report\n    cron: '*/10 * * * * *'\n    timezone: UTC\n    jitter: 30s\n"

// defNotes is the definitions page's list of notes ("" when it has none).
func defNotes(page string) string {
	_, notes, ok := strings.Cut(page, `id="def-notes"`)
	if !ok {
		return ""
	}
	notes, _, _ = strings.Cut(notes, "</div>")
	return notes
}

// The preview and the result of an apply note, in the page's language,
// what a valid file does that its author likely does not expect, as `ql
// apply` does: on this single-node server placement is stored but never
// acted on, a jitter past the cron's period, and the secrets its secrets file
// does not define (only those). The English page says `ql apply`'s words.
func TestTheDefinitionsPageNotesWhatAValidFileWillNotDoInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	if err := os.WriteFile(LayoutOf(site.dir).Secrets, []byte(`{"defined_key": "k3y-value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	zh := []string{"放置（placement）会被保存，但不会生效", "（任务：report）",
		"请让抖动短于 cron 的周期（触发器：nightly（抖动 30s，两次发生相隔 10s））", "还没有定义 api_token："}
	en := []string{"placement is stored but not acted on", "keep jitter below the cron&#39;s period (triggers: nightly (jitter 30s, 10s between occurrences))",
		"does not define api_token yet"}
	for _, step := range []string{"/definitions/preview", "/definitions/apply"} {
		form := url.Values{"csrf": {csrf}, "yaml": {notedFile}}
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+step+"?lang=zh", form)
		notes := defNotes(page)
		if resp.StatusCode != http.StatusOK || strings.Count(notes, "<li>") != 3 || strings.Contains(notes, "defined_key") || strings.Contains(notes, "note") {
			t.Errorf("%s in Chinese: %d, want 200 with three notes, none naming the defined secret, none in English:\n%s", step, resp.StatusCode, notes)
		}
		for _, w := range zh {
			if !strings.Contains(notes, w) {
				t.Errorf("%s in Chinese: the notes do not say %q:\n%s", step, w, notes)
			}
		}
		resp, page = httpcall.Form(t, c, http.MethodPost, site.base+step+"?lang=en", form)
		notes = defNotes(page)
		for _, w := range en {
			if resp.StatusCode != http.StatusOK || !strings.Contains(notes, w) {
				t.Errorf("%s in English: %d, the notes do not say %q:\n%s", step, resp.StatusCode, w, notes)
			}
		}
	}
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/preview?lang=zh",
		url.Values{"csrf": {csrf}, "yaml": {shopTrigger + "    cron: '0 3 * * *'\n    timezone: UTC\n"}})
	if resp.StatusCode != http.StatusOK || strings.Contains(page, `id="def-notes"`) {
		t.Errorf("a file that gets no note: %d, want 200 without notes:\n%s", resp.StatusCode, defNotes(page))
	}
}

// A secrets file that exists but is not valid JSON makes every secret
// unavailable to the Runs and notifications that need one, so the
// preview and the result of an apply note, in the page's language, that
// the server cannot use it, why, and every secret the file names, and no
// byte of the file. (The ways it can be unusable are each shown through
// the API in the singlecli tests; the page's sentence for each cause is
// the same fill.)
func TestTheDefinitionsPageNotesASecretsFileTheServerCannotUseInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	path := LayoutOf(site.dir).Secrets
	if err := os.WriteFile(path, []byte(`{"defined_key": "k3y-value-never-shown",`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	zh := "密钥文件 " + path + " 无法使用：它不是由字符串值组成的 JSON 对象；若它不是有效的 JSON，请修正其语法，并把每个值都写成带引号的字符串（{&#34;名称&#34;: &#34;值&#34;}）。" +
		"在修复之前，用到 defined_key、api_token 的每次运行或通知都会失败（secret_unavailable）。"
	en := "the secrets file " + path + " cannot be used: it is not a JSON object of string values; correct its syntax if it is not valid JSON, " +
		"and write every value as a quoted string ({&#34;name&#34;: &#34;value&#34;}). " +
		"Until it can, every Run or notification that needs defined_key, api_token fails (secret_unavailable)"
	for _, step := range []string{"/definitions/preview", "/definitions/apply"} {
		for lang, want := range map[string]string{"zh": zh, "en": en} {
			resp, page := httpcall.Form(t, c, http.MethodPost, site.base+step+"?lang="+lang, url.Values{"csrf": {csrf}, "yaml": {notedFile}})
			notes := defNotes(page)
			if resp.StatusCode != http.StatusOK || strings.Count(notes, "<li>") != 3 || !strings.Contains(notes, want) || strings.Contains(page, "k3y-value") {
				t.Errorf("%s in %s: %d, want 200 with three notes, one saying %q and none any byte of the file:\n%s", step, lang, resp.StatusCode, want, notes)
			}
		}
	}
}

// A valid file whose write waits for the database's write lock, which
// another process holds, past the request's time limit is answered 504 on
// the page in its language: the lock held it, nothing was applied, and
// what to do. The page does not call the file invalid, and keeps its text
// to send again; once the lock is let go, the same file applies.
func TestAnApplyBehindAnotherProcesssLockSaysSoInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) { c.RequestTimeout = 500 * time.Millisecond })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	release := holdDatabaseLock(t, site.dir)
	file := shopTrigger + "    cron: '0 4 * * *'\n    timezone: UTC\n"
	form := url.Values{"csrf": {csrf}, "yaml": {file}}
	for lang, want := range map[string][]string{
		"zh": {"数据库暂时无法使用；文件本身没有错误", "另一个进程持有数据库文件", "因此什么也没有写入"},
		"en": {"nothing is wrong with the file", "nothing was applied: another process held the write lock of the database file"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply?lang="+lang, form)
		errs := defErrors(page)
		ok := resp.StatusCode == http.StatusGatewayTimeout && !strings.Contains(errs, "文件无效") && !strings.Contains(errs, "file is invalid") &&
			!strings.Contains(errs, "outcome is unknown") && !strings.Contains(errs, "无法确认") && strings.Contains(page, "timezone: UTC")
		for _, w := range want {
			ok = ok && strings.Contains(errs, w)
		}
		if !ok {
			t.Errorf("%s: an apply behind another process's lock: %d, want 504 saying %q, not that the file is invalid or the outcome unknown, with the text kept:\n%s", lang, resp.StatusCode, want, page)
		}
	}
	release()
	// In English whatever language the loop asked for last: the client
	// keeps the language a page was asked in.
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply?lang=en", form)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<tr class="change-updated"><td data-label="Kind">trigger</td>`) {
		t.Errorf("the same file once the lock is let go: %d, want it applied, the trigger updated:\n%s", resp.StatusCode, page)
	}
}

// The same apply over the API says why nothing was applied, not only that
// nothing was: its message carries the lock's sentence after the file's.
func TestAnApplyOverTheAPIBehindAnotherProcesssLockSaysWhy(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) { c.RequestTimeout = 500 * time.Millisecond })
	release := holdDatabaseLock(t, site.dir)
	defer release()
	file := shopTrigger + "    cron: '0 4 * * *'\n    timezone: UTC\n"
	status, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/apply", site.tokens[apitoken.Admin], []byte(file))
	if status != http.StatusGatewayTimeout || !strings.Contains(string(body), "nothing was applied: another process held the write lock of the database file") {
		t.Fatalf("an apply over the API behind another process's lock: %d %s; want 504 saying what held it", status, body)
	}
}

// A preview says the revision each change makes in the page's language and
// its punctuation: created (revision 1), 新建（修订版 1）.
func TestADefinitionsPreviewSaysEachRevisionInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for lang, want := range map[string]string{"en": `created (revision 1)</td>`, "zh": `新建（修订版 1）</td>`} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang="+lang, newTaskForm(csrf, "backup", "hello", "echo"))
		if resp.StatusCode != http.StatusOK || strings.Count(page, want) != 2 {
			t.Errorf("%s: %d, want the task and the trigger each %s:\n%s", lang, resp.StatusCode, want, page)
		}
	}
}
