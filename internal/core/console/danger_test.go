package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// dangerStepOf is the question before the action of button id on page:
// a <details> whose summary, styled as a danger, opens it, holding the
// form with the button; "" when the button is not behind one.
func dangerStepOf(page, id string) string {
	return regexp.MustCompile(`(?s)<details class="danger-step" id="` + regexp.QuoteMeta(id) + `-step"><summary class="danger" id="` + regexp.QuoteMeta(id) +
		`-ask">[^<]+</summary><div class="danger-confirm"><p class="help">.*?</p>.*?<button [^>]*id="` + regexp.QuoteMeta(id) + `"[^>]*>[^<]+</button>.*?</details>`).FindString(page)
}

// Disabling a trigger takes two taps, on its page, on its row of the list
// and in the list's batch form, with or without scripts: the first only
// opens a question styled as a danger, saying in the page's language
// what a disable does (unlike a pause); the second, naming the trigger,
// disables it. After it, the trigger's page says at its top what was done.
func TestDisablingATriggerAsksForConfirmation(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	a := site.triggers["a"]
	for l, words := range map[string][3]string{
		"en": {"Disable…", "Yes, disable shop/a", "Disable publishes a new revision"},
		"zh": {"停用…", "确认停用 shop/a", "停用：发布该触发器的一个停用的新修订版"},
	} {
		page := site.do(apitoken.Admin, "/triggers/"+a+"?lang="+l, nil).Body.String()
		step := html.UnescapeString(dangerStepOf(page, "disable"))
		if step == "" || !strings.Contains(step, words[0]) || !strings.Contains(step, words[1]) || !strings.Contains(step, words[2]) {
			t.Fatalf("%s: the trigger page's disable is not behind a question saying %q:\n%s", l, words, page)
		}
		if !strings.Contains(html.UnescapeString(page), tr(l, "hint.pause")) {
			t.Errorf("%s: the trigger page does not say what a pause does beside it", l)
		}
		list := site.do(apitoken.Admin, "/triggers?lang="+l, nil).Body.String()
		if dangerStepOf(list, "disable-"+a) == "" || dangerStepOf(list, "batch-disable") == "" || dangerStepOf(list, "batch-disable-bottom") == "" {
			t.Fatalf("%s: a disable on the triggers list is not behind a question:\n%s", l, list)
		}
		if regexp.MustCompile(`<button[^>]*>` + regexp.QuoteMeta(tr(l, "disable")) + `</button>`).MatchString(page + list) {
			t.Errorf("%s: a page still has a one-tap disable button", l)
		}
	}
	w := site.send(apitoken.Admin, "/triggers/"+a+"/disable?lang=zh", url.Values{})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("disable: %d\n%s", w.Code, w.Body)
	}
	after := site.send(apitoken.Admin, w.Header().Get("Location"), nil).Body.String()
	if !strings.Contains(after, `<p class="notice" id="flash" role="status">已停用 shop/a。</p>`) {
		t.Fatalf("the trigger's page does not say at its top that it was disabled:\n%s", after)
	}
}

var batchNoted = regexp.MustCompile(`(?s)<section id="batch-noted">.*?</section>`)

// A batch resume of every trigger selected leaves one paused with a note
// (someone stopped it on purpose) paused: its answer says it was left
// paused and why, quoting the note, counts it apart, and lists it with an
// unticked box; only a trigger ticked there is resumed.
func TestABatchResumeLeavesTriggersPausedWithANote(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	a, b := site.triggers["a"], site.triggers["b"]
	for id, note := range map[string]string{a: "数据库升级 请勿运行", b: ""} {
		if w := site.send(apitoken.Operate, "/triggers/"+id+"/pause", url.Values{"note": {note}}); w.Code != http.StatusSeeOther {
			t.Fatalf("pause: %d\n%s", w.Code, w.Body)
		}
	}
	page := site.do(apitoken.Operate, "/triggers/batch?lang=zh", url.Values{"do": {"resume"}, "id": {a, b}}).Body.String()
	if paused, _ := site.paused(t, "a"); !paused {
		t.Fatal("the batch resumed a trigger paused with a note")
	}
	if paused, _ := site.paused(t, "b"); paused {
		t.Fatal("the batch did not resume the trigger paused without a note")
	}
	text := html.UnescapeString(page)
	if !strings.Contains(text, "已选 2 个；完成 1 个；被拒绝 0 个。带备注而保持暂停 1 个。") || !strings.Contains(text, "保持暂停：它是带备注暂停的（“数据库升级 请勿运行”）") {
		t.Fatalf("the answer does not say one was resumed and which was left paused, and why:\n%s", page)
	}
	noted := batchNoted.FindString(page)
	if !strings.Contains(noted, `<input type="checkbox" name="id" value="`+a+`" class="batch-pick">`) || strings.Contains(noted, b) || strings.Contains(noted, "checked") {
		t.Fatalf("the answer does not offer the trigger left paused, unticked, to resume:\n%s", page)
	}
	form := url.Values{"do": {"resume"}, "noted": {"resume"}, "id": {a}}
	site.do(apitoken.Operate, "/triggers/batch", form)
	if paused, _ := site.paused(t, "a"); paused {
		t.Fatal("the trigger ticked on the answer's list was not resumed")
	}
}

// Cancelling a Run takes two taps as well: the Run's page puts its cancel
// behind a question, in the page's language, naming the Run; the page
// the cancel leads to says at its top that it was cancelled.
func TestCancellingARunAsksForConfirmation(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) { cfg.Cancel = cfg.Export.(*sqlitestore.Store).CancelRun })
	w := site.send(apitoken.Operate, "/triggers/"+site.triggers["a"]+"/run", url.Values{"request": {"r1"}})
	run := strings.TrimPrefix(w.Header().Get("Location"), "/runs/")
	if w.Code != http.StatusSeeOther || run == "" {
		t.Fatalf("run now: %d to %q", w.Code, w.Header().Get("Location"))
	}
	for l, words := range map[string]string{"en": "Yes, cancel Run " + run, "zh": "确认取消运行 " + run} {
		page := site.do(apitoken.Operate, "/runs/"+run+"?lang="+l, nil).Body.String()
		if step := dangerStepOf(page, "cancel"); !strings.Contains(step, words) {
			t.Fatalf("%s: the Run's cancel is not behind a question saying %q:\n%s", l, words, page)
		}
	}
	w = site.send(apitoken.Operate, "/runs/"+run+"/cancel?lang=zh", url.Values{})
	if after := site.send(apitoken.Operate, w.Header().Get("Location"), nil).Body.String(); !strings.Contains(after, `<p class="notice" id="flash" role="status">已取消运行 `+run+`。</p>`) {
		t.Fatalf("the Run's page does not say at its top that it was cancelled:\n%s", after)
	}
}
