package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// window is the backfill form's fields for a window given in UTC.
func window(from, to time.Time) url.Values {
	const local = "2006-01-02T15:04"
	return url.Values{"from": {from.UTC().Format(local)}, "to": {to.UTC().Format(local)}}
}

// Each refusal of a backfill — a window reversed, reaching into the
// future or missing a bound, a time that is none, a trigger that does not
// exist or an id that is none, a disabled trigger, an archived project's —
// is shown on the page in its language, the preview's and the
// confirmation's alike (in English naming the form's fields, from and to,
// never the CLI's or the API's), and creates nothing.
func TestConsoleBackfillRefusalsAreShownInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	trig := "/triggers/" + site.triggerID
	now := time.Now()
	past := window(now.AddDate(-3, 0, 0), now.Add(-time.Minute))
	for _, step := range []string{"/backfill/preview", "/backfill"} {
		for _, r := range []refusal{
			{"a reversed window", http.MethodPost, trig + step, window(now.AddDate(-1, 0, 0), now.AddDate(-2, 0, 0)),
				"the window&#39;s start (from) is after its end (to)", "回填窗口的起始时间晚于截止时间"},
			{"a window ending tomorrow", http.MethodPost, trig + step, window(now.AddDate(-1, 0, 0), now.AddDate(0, 0, 1)),
				"the window&#39;s end (to) is in the future", "回填窗口不能延伸到未来"},
			{"a window starting tomorrow", http.MethodPost, trig + step, window(now.AddDate(0, 0, 1), now.AddDate(0, 0, 2)),
				"the window&#39;s start (from) is in the future", "回填窗口不能延伸到未来"},
			{"a window without its start", http.MethodPost, trig + step, url.Values{"to": past["to"]},
				"Give both bounds of the window", "请填写回填窗口的起始和截止时间"},
			{"a start that is no time", http.MethodPost, trig + step, url.Values{"from": {"yesterday"}, "to": past["to"]},
				"is not a date and time like", "时间无法识别"},
			{"a trigger that does not exist", http.MethodPost, "/triggers/" + ids.New() + step, past,
				"`ql triggers list` shows the triggers", "该触发器不存在"},
			{"a trigger id that is none", http.MethodPost, "/triggers/not-an-id" + step, past, "give a trigger id", "这不是触发器 ID"},
		} {
			r.what += " (" + step + ")"
			r.check(t, site, c, csrf)
		}
	}

	httpcall.Form(t, c, http.MethodPost, site.base+trig+"/disable", url.Values{"csrf": {csrf}})
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+trig+"?lang=en", nil); !strings.Contains(page, `id="backfill-off"`) || strings.Contains(page, `id="backfill-form"`) {
		t.Errorf("a disabled trigger's page offers the backfill form, or does not say why not:\n%s", page)
	}
	refusal{"a backfill of a disabled trigger", http.MethodPost, trig + "/backfill/preview", past,
		"is disabled: nothing of it runs", "触发器“nightly”已停用，立即运行与回填也不执行"}.check(t, site, c, csrf)
	httpcall.Form(t, c, http.MethodPost, site.base+trig+"/enable", url.Values{"csrf": {csrf}})
	site.archiveShop(t)
	refusal{"a backfill of an archived project's trigger", http.MethodPost, trig + "/backfill", past,
		"belongs to an archived project", "所属的项目已归档"}.check(t, site, c, csrf)
	if ids := runIDsOf(t, site); len(ids) != 0 {
		t.Fatalf("refused backfills created the runs %v", ids)
	}
}

// A window holding more occurrences than one backfill from the console
// admits is refused whole, in the page's language, and nothing of it is
// created.
func TestConsoleBackfillRefusesAWindowOverItsCapWhole(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, trigger.Cron{Expression: "0 * * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	now := time.Now()
	refusal{"a window of two days of minutes", http.MethodPost, "/triggers/" + site.triggerID + "/backfill/preview", window(now.AddDate(0, 0, -3), now.AddDate(0, 0, -1)),
		"holds more than 1000 occurrences", "窗口内的发生时刻超过 1000 个"}.check(t, site, c, csrf)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/backfill", url.Values{"csrf": {csrf}, "from": window(now.AddDate(0, 0, -3), now)["from"], "to": window(now, now)["to"]})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="backfill-error"`) {
		t.Fatalf("a backfill of three days of minutes: %d, want 400 on the page:\n%s", resp.StatusCode, page)
	}
	for _, id := range runIDsOf(t, site) {
		if r, err := site.srv.store.RunGet(t.Context(), id); err != nil || r.Run.ScheduledForMs < now.Add(-time.Minute).UnixMilli() {
			t.Fatalf("a refused backfill created run %s (%v)", id, err)
		}
	}
}

// The refusal of a run now or a backfill of a disabled trigger names the
// command that enables it by the trigger's project and name, reaching the
// server's data directory, in both languages: the store's refusal named
// it by its id, which no page shows, in a command the user could not
// tell was about this trigger.
func TestADisabledTriggersRefusalNamesItsEnableCommandByProjectAndName(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	trig := "/triggers/" + site.triggerID
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+trig+"/disable", url.Values{"csrf": {csrf}}); !tookForm(resp) {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	now := time.Now()
	enable := keptFlags("<code>ql triggers enable shop/nightly --data-dir " + site.dir + "</code>")
	for _, step := range []string{"/run", "/backfill/preview", "/backfill"} {
		for _, l := range []string{"en", "zh"} {
			form := window(now.AddDate(-3, 0, 0), now.Add(-time.Minute))
			form.Set("csrf", csrf)
			resp, page := httpcall.Form(t, c, http.MethodPost, site.base+trig+step+"?lang="+l, form)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(page, enable) || strings.Contains(page, "triggers enable "+site.triggerID) {
				t.Errorf("%s of the disabled trigger (%s): %d, want 409 naming %s, not the trigger's id:\n%s", step, l, resp.StatusCode, enable, page)
			}
		}
	}
	if ids := runIDsOf(t, site); len(ids) != 0 {
		t.Fatalf("the refused run now and backfills created the runs %v", ids)
	}
}

// A definitions file that changes a trigger's task without naming the
// trigger carries the trigger along to the task's new revision, so it runs
// on. A file that disables the task leaves the trigger on the task's older
// revision, and nothing of it runs until it is published again with its
// task enabled: a run now or a backfill of it is refused saying that the
// task is disabled and that only its file, set enabled and applied with
// the trigger, enables it, in both languages; the store's refusal said the
// trigger was being republished and to try again in a moment, which never
// helps. Applying the file with both runs it again.
func TestATriggerLeftOnAnOldRevisionOfItsTaskIsRefusedSayingHowToRunItAgain(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	trig := "/triggers/" + site.triggerID
	apply := func(yaml string) {
		t.Helper()
		if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply?lang=en", url.Values{"csrf": {csrf}, "yaml": {yaml}}); resp.StatusCode != http.StatusOK {
			t.Fatalf("applying %q: %d\n%s", yaml, resp.StatusCode, defErrors(page))
		}
	}
	const task = "project: shop\ntasks:\n  - name: report\n    script: echo backfilled again\n"
	apply(task)
	site.runNow(t, c, csrf)
	before := runIDsOf(t, site)
	now := time.Now()
	apply(task + "    enabled: false\n")
	en := "task report is disabled, so nothing of trigger nightly runs, run now and backfill included; only its definitions file enables a task: " +
		"set enabled: true on task report in the file and apply it with the trigger (<code>ql apply -f FILE</code>, or on the Definitions page of the console)"
	zh := "任务“report”已停用，因此触发器“nightly”什么都不运行，立即运行与回填也不执行；任务只能由它的定义文件启用：在文件中为任务“report”设置 enabled: true，并与该触发器一起应用"
	for _, step := range []string{"/run", "/backfill/preview", "/backfill"} {
		for _, l := range []struct{ lang, want, not string }{{"en", en, "republished; try again"}, {"zh", zh, "请稍后重试"}} {
			form := window(now.AddDate(-3, 0, 0), now.Add(-time.Minute))
			form.Set("csrf", csrf)
			if step != "/run" {
				// The backfill form says it as a sentence beside its
				// fields; run now's page as the error says it.
				l.want = strings.Replace(l.want, "task report", "Task report", 1)
			}
			resp, page := httpcall.Form(t, c, http.MethodPost, site.base+trig+step+"?lang="+l.lang, form)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(page, l.want) || strings.Contains(page, l.not) || l.lang == "zh" && strings.Contains(page, "task report") {
				t.Errorf("%s after disabling the task (%s): %d, want 409 saying %q:\n%s", step, l.lang, resp.StatusCode, l.want, page)
			}
		}
	}
	if ids := runIDsOf(t, site); len(ids) != len(before) {
		t.Fatalf("the refused run now and backfills created runs: %v, before them %v", ids, before)
	}
	apply(task + "triggers:\n  - {name: nightly, task: report, cron: '0 0 3 1 1 *', timezone: Asia/Shanghai, misfire: fire_once}\n")
	site.runNow(t, c, csrf)
}
