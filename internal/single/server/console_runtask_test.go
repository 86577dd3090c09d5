package server

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A Run's page names the task it ran, at the revision it ran, in the
// page's language.
func TestARunsPageNamesTheTaskItRan(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	for lang, want := range map[string]string{"en": `<dt>Task</dt><dd id="run-task">report <small>(revision 1)</small>`, "zh": `<dt>任务</dt><dd id="run-task">report <small>（修订版 1）</small>`} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+lang, nil); !strings.Contains(page, want) {
			t.Errorf("the Run's page in %s does not say %s:\n%s", lang, want, page)
		}
	}
}

// A Run's events table heads its columns for the one event of each row and
// when it happened (Event and When, 事件 and 时间), not Events and Created,
// on a phone's cards too, where each heading labels its value.
func TestARunsEventsTableHeadsEachRowsEventAndItsTime(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	for lang, want := range map[string][]string{
		"en": {`<th>#</th><th>Event</th><th>When</th>`, `<td data-label="Event"><span class="event-name">created</span>`, `</details></td><td data-label="When">`},
		"zh": {`<th>#</th><th>事件</th><th>时间</th>`, `<td data-label="事件"><span class="event-name">已创建</span>`, `</details></td><td data-label="时间">`},
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+lang, nil)
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("the Run's page in %s does not have %s:\n%s", lang, w, page)
			}
		}
	}
}

// A trigger's timeline marks a Run a person asked for, as the Runs lists
// do (run now, 立即运行): a re-run keeps its original's scheduled time, so
// without the mark a Run and its re-runs read as the schedule's own.
func TestATriggersTimelineMarksARunAPersonAskedFor(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	for lang, want := range map[string]string{"en": `<small class="origin">run now</small>`, "zh": `<small class="origin">立即运行</small>`} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang="+lang, nil)
		_, row, _ := strings.Cut(page, `<a href="/runs/`+id+`" title="`+id+`" class="run-id">`)
		row, _, _ = strings.Cut(row, "</tr>")
		if !strings.Contains(row, want) {
			t.Errorf("the trigger's timeline in %s shows the Run %s without %s:\n%s", lang, id, want, row)
		}
	}
}

// A finished Run's page says when it finished, how long it took from its
// admission (its total, queue included, as the Runs lists say it) and how
// long its attempts ran (when one ran), as a person reads a duration (no 1m51.341s), in
// the page's language; a Run still going says neither.
func TestAFinishedRunsPageSaysWhenItFinishedAndHowLongItTook(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang=en", nil); strings.Contains(page, `id="run-finished"`) {
		t.Errorf("an unfinished Run's page says it finished:\n%s", page)
	}
	site.cancel(t, c, csrf, id)
	for lang, want := range map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`<dt>Finished</dt><dd id="run-finished"><span class="time">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</span> · <span class="nowrap" id="run-took">Total \(incl\. queued\) (\d+[hm])*(\d+(\.\d)?s|\d+ms)?</span>( · <span class="nowrap" id="run-ran">ran (\d+[hm])*(\d+(\.\d)?s|\d+ms)?</span>)?</dd>`),
		"zh": regexp.MustCompile(`<dt>结束时间</dt><dd id="run-finished"><span class="time">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</span> · <span class="nowrap" id="run-took">总用时（含排队） (\d+(小时|分))*(\d+(\.\d)?秒|\d+毫秒)?</span>( · <span class="nowrap" id="run-ran">运行 (\d+(小时|分))*(\d+(\.\d)?秒|\d+毫秒)?</span>)?</dd>`),
	} {
		var page string
		waitFor(t, "the cancelled Run's page in "+lang+" to say when it finished", 10*time.Second, func() bool {
			_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?tz=UTC&lang="+lang, nil)
			return strings.Contains(page, `id="run-finished"`)
		})
		if !want.MatchString(page) {
			t.Errorf("the cancelled Run's page in %s does not match %s:\n%s", lang, want, page)
		}
	}
}
