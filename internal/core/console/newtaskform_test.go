package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/task"
)

// canPublish lets the console publish definitions, as a standalone
// server's does.
func canPublish(cfg *Config) {
	cfg.Definitions = &catalog.Service{Store: cfg.Export.(catalog.Store), Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
}

// The New task form's preview shows what it will create — the task's
// script, its shell and timeout, the trigger's cron expression and time
// zone — and speaks of the form, not of a file its user never wrote, in
// English and in Chinese.
func TestTheNewTaskPreviewShowsTheScriptScheduleAndZoneItCreates(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	for l, want := range map[string][]string{
		"en": {"What the form creates", "Script (run by /bin/sh)", "The project's other tasks and triggers are left as they are."},
		"zh": {"表单将创建的内容", "脚本（由 /bin/sh 运行）", "项目中的其他任务和触发器保持不变。"},
	} {
		w := site.do(apitoken.Admin, "/definitions/new?lang="+l, url.Values{"project": {"shop"}, "task": {"backup-" + l}, "script": {"tar czf /tmp/b.tgz /srv\necho done"},
			"cron": {"30 2 * * 1-5"}, "timezone": {"Asia/Shanghai"}, "timeout": {"90m"}})
		page := html.UnescapeString(w.Body.String())
		if w.Code != http.StatusOK || !strings.Contains(page, `id="def-preview"`) {
			t.Fatalf("%s: %d, want the preview:\n%s", l, w.Code, page)
		}
		for _, s := range append(want, `<pre class="script" id="nt-shown-script">tar czf /tmp/b.tgz /srv
echo done</pre>`, `<code id="nt-shown-cron">30 2 * * 1-5</code>`, `<dd id="nt-shown-timezone">Asia/Shanghai</dd>`, "<dd>1h30m</dd>", "<dd>backup-"+l+"</dd>") {
			if !strings.Contains(page, s) {
				t.Errorf("%s: the preview does not show %q:\n%s", l, s, page)
			}
		}
		for _, file := range []string{"Objects missing from the file", "文件中没有的对象"} {
			if strings.Contains(page, file) {
				t.Errorf("%s: the preview of a form speaks of a file (%q)", l, file)
			}
		}
	}
	// A file written by hand is previewed as before: it is its author's.
	page := html.UnescapeString(site.do(apitoken.Admin, "/definitions/preview", url.Values{"yaml": {defsTask + "triggers:\n  - name: t\n    task: a\n    cron: '0 * * * *'\n    timezone: UTC\n"}}).Body.String())
	if !strings.Contains(page, "Objects missing from the file are left as they are.") || strings.Contains(page, `id="nt-shown"`) {
		t.Errorf("a file's preview does not read as a file's:\n%s", page)
	}
}

// A New task form of several mistakes lists them in the order of the
// form's fields — task name, script, schedule, time zone, timeout,
// trigger name — not in the order of the file the form writes (a task's
// fields, then its trigger's).
func TestTheNewTaskFormSaysItsMistakesInTheOrderOfItsFields(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	w := site.do(apitoken.Admin, "/definitions/new", url.Values{"project": {"shop"}, "task": {"Bad Name"}, "script": {"echo"},
		"cron": {"99 * * * *"}, "timezone": {"Nowhere/Zone"}, "timeout": {"forever"}, "trigger": {"Bad T"}})
	_, list, _ := strings.Cut(html.UnescapeString(w.Body.String()), `id="nt-errors"`)
	items := regexp.MustCompile(`<li>(.*?):`).FindAllStringSubmatch(list, -1)
	var labels []string
	for _, m := range items {
		labels = append(labels, m[1])
	}
	want := []string{"Task name", "Schedule (cron)", "Time zone (IANA name)", "Timeout", "Trigger name"}
	if w.Code != http.StatusBadRequest || strings.Join(labels, " | ") != strings.Join(want, " | ") {
		t.Errorf("%d with the mistakes of %q, want 400 with those of %q:\n%s", w.Code, labels, want, w.Body)
	}
}

// The New task form's preview lists the trigger's next five fires in the
// viewer's zone, so that a schedule is checked by its times before it is
// applied: */30 in the seconds' place fires twice a minute, which its
// times show and its expression alone does not.
func TestTheNewTaskPreviewListsTheTriggersNextFires(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	w := site.do(apitoken.Admin, "/definitions/new?lang=zh&tz=Asia/Shanghai", url.Values{"project": {"shop"}, "task": {"poll"}, "script": {"echo"},
		"cron": {"*/30 * * * * *"}, "timezone": {"Asia/Shanghai"}})
	page := html.UnescapeString(w.Body.String())
	_, fires, _ := strings.Cut(page, `id="nt-shown-fires">`)
	fires, _, _ = strings.Cut(fires, "</dd>")
	times := regexp.MustCompile(`(\d{4}-\d\d-\d\d \d\d:\d\d:(\d\d)) UTC\+08:00`).FindAllStringSubmatch(fires, -1)
	if w.Code != http.StatusOK || len(times) != 5 || !strings.Contains(page, "<dt>接下来 5 次触发</dt>") {
		t.Fatalf("%d, %d fire times in %q; want the preview to list the next 5 in UTC+08:00:\n%s", w.Code, len(times), fires, page)
	}
	var prev time.Time
	for i, m := range times {
		at, err := time.ParseInLocation("2006-01-02 15:04:05", m[1], zoneOf("Asia/Shanghai"))
		if err != nil {
			t.Fatal(err)
		}
		if m[2] != "00" && m[2] != "30" || i > 0 && at.Sub(prev) != 30*time.Second {
			t.Errorf("fire %d at %s; want every 30 seconds on :00 and :30 (%q)", i+1, m[1], fires)
		}
		prev = at
	}
}

// The New task form says where its script starts — a fresh empty
// directory, so a script file is named by its full path or reached with
// cd — and that the qinglong panel's task command is not there, in
// English and in Chinese, with the commands set as code.
func TestTheNewTaskFormSaysItsScriptStartsInAFreshEmptyDirectory(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	for l, want := range map[string][]string{
		"en": {"starts in a fresh empty directory", "<code>node /ql/scripts/jd_bean_sign.js</code>", "<code>cd</code>", "no <code>task</code> command"},
		"zh": {"在一个新建的空目录中启动", "<code>node /ql/scripts/jd_bean_sign.js</code>", "<code>cd</code>", "没有青龙面板的 <code>task</code> 命令"},
	} {
		w := site.do(apitoken.Admin, "/definitions/new?lang="+l, nil)
		page := w.Body.String()
		for _, s := range want {
			if !strings.Contains(page, s) {
				t.Errorf("%s: the New task form does not say %q:\n%s", l, s, page)
			}
		}
	}
}

// The New task form's working directory is the task's workingDir: the
// preview shows it and its file writes it, so a script can run a file of
// the scripts folder by its name; a relative one is refused on the form,
// started with the field's label, in English and in Chinese.
func TestTheNewTaskFormsWorkingDirectoryIsTheTasksWorkingDir(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	w := site.do(apitoken.Admin, "/definitions/new?lang=zh", url.Values{"project": {"jd"}, "task": {"bean"}, "script": {"node jd_bean_sign.js"},
		"cron": {"0 5 0 * * *"}, "timezone": {"Asia/Shanghai"}, "workdir": {"/ql/scripts"}})
	page := html.UnescapeString(w.Body.String())
	for _, want := range []string{`<dt>工作目录</dt><dd><code id="nt-shown-workdir">/ql/scripts</code></dd>`, "workingDir: /ql/scripts\n"} {
		if w.Code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("%d: the preview does not show %q:\n%s", w.Code, want, page)
		}
	}
	for l, want := range map[string]string{"en": "Working directory (optional): ", "zh": "工作目录（可选）："} {
		w := site.do(apitoken.Admin, "/definitions/new?lang="+l, url.Values{"project": {"jd"}, "task": {"bean"}, "script": {"node jd_bean_sign.js"},
			"cron": {"0 5 0 * * *"}, "timezone": {"Asia/Shanghai"}, "workdir": {"scripts"}})
		_, list, _ := strings.Cut(html.UnescapeString(w.Body.String()), `id="nt-errors"`)
		if w.Code != http.StatusBadRequest || !strings.Contains(list, "<li>"+want) {
			t.Errorf("%s: %d, want the relative directory refused starting with %q:\n%s", l, w.Code, want, list)
		}
	}
}
