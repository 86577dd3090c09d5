package console

import (
	"html"
	"html/template"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run's events read in the page's language: what happened, then what
// the payload says of it — the attempt, the exit code, the meaning of an
// error code the page knows (beside the code; an English page shows the code, as the attempts do), who asked, the reason
// (in Chinese on a Chinese page, as stored when the page has no word for
// it), when a retry starts in the viewer's zone; an event this server has
// no word for is named as stored, and a payload that is not a JSON object
// adds nothing.
func TestARunsEventsReadInThePagesLanguage(t *testing.T) {
	t.Parallel()
	retry := run.Event{Name: run.EventRetryWait, Payload: `{"attempt":1,"attemptId":"a","exitCode":1,"nextAttempt":2,"availableAtMs":1796356800000,"outcome":"failed"}`}
	cancelled := run.Event{Name: run.EventCancelled, Payload: `{"attemptId":"a","errorCode":"cancelled","actor":"console:olivia"}`}
	requeued := run.Event{Name: run.EventQueued, Payload: `{"attemptId":"a","attempt":2,"reason":"retry"}`}
	overlapped := run.Event{Name: run.EventCancelled, Payload: `{"attemptId":"a","reason":"cancelled by a later occurrence (overlap: cancel_previous)"}`}
	stopAsked := run.Event{Name: run.EventCancelRequested, Payload: `{"attemptId":"a","reason":"cancelled by a manual run (overlap: cancel_previous)"}`}
	for _, c := range []struct {
		l        string
		e        run.Event
		name     string
		facts    string
		withZone string
	}{
		{"en", retry, "waiting to retry", "attempt 1 · exit code 1 · attempt 2 from 2026-12-04 12:00:00 UTC+08:00", "Asia/Shanghai"},
		{"zh", retry, "等待重试", "第 1 次尝试；退出码 1；第 2 次尝试于 2026-12-04 04:00:00 UTC 开始", ""},
		{"en", cancelled, "cancelled", "cancelled · by console:olivia", ""},
		{"zh", cancelled, "已取消", "运行被要求取消，命令已被停止（cancelled）；操作者：console:olivia", ""},
		{"zh", requeued, "已排队", "第 2 次尝试；原因：重试", ""},
		{"en", requeued, "queued", "attempt 2 · reason: retry", ""},
		{"zh", overlapped, "已取消", "原因：被后一次触发取消（overlap: cancel_previous）", ""},
		{"zh", stopAsked, "已请求取消", "原因：被一次手动运行取消（overlap: cancel_previous）", ""},
		{"en", stopAsked, "cancel asked", "reason: cancelled by a manual run (overlap: cancel_previous)", ""},
		{"zh", run.Event{Name: run.EventQueued, Payload: `{"reason":"something_newer"}`}, "已排队", "原因：something_newer", ""},
		{"en", run.Event{Name: "run.something_newer", Payload: `{"attempt":3}`}, "run.something_newer", "attempt 3", ""},
		{"zh", run.Event{Name: run.EventQueued, Payload: `not json`}, "已排队", "", ""},
		{"zh", run.Event{Name: run.EventDispatching, Payload: `{"attempt":1}`}, "已分派给执行节点", "第 1 次尝试", ""},
	} {
		if got := eventName(c.l, c.e.Name); got != c.name {
			t.Errorf("%s: %s is named %q, want %q", c.l, c.e.Name, got, c.name)
		}
		if got := pageText(eventFacts(c.l, c.e, c.withZone)); got != c.facts {
			t.Errorf("%s: %s says %q, want %q", c.l, c.e.Name, got, c.facts)
		}
	}
}

// A Run's run.waiting event reads, in the page's language, as waiting for
// a worker and why no worker could take it when it was noted, in the words
// of the page's "Why it waits", not as its reason code.
func TestARunsWaitingEventSaysWhyNoWorkerCouldTakeIt(t *testing.T) {
	t.Parallel()
	labels := run.Event{Name: run.EventWaiting, Payload: `{"reason":"no_matching_worker","labels":{"gpu":"a100"},"workers":2}`}
	none := run.Event{Name: run.EventWaiting, Payload: `{"reason":"no_worker","labels":{},"workers":0}`}
	for _, c := range []struct {
		l     string
		e     run.Event
		name  string
		facts string
	}{
		{"en", labels, "waiting for a worker", "Its task's placement requires the labels gpu=a100, and none of the 2 live workers carries them all. Start a worker with those labels, or change the task's placement.labels."},
		{"zh", labels, "等待执行节点", "其任务的 placement 要求标签 gpu=a100，但 2 个在线执行节点中没有一个同时具备这些标签。请启动带有这些标签的执行节点，或修改任务的 placement.labels。"},
		{"en", none, "waiting for a worker", "No worker is connected, so nothing can run it. Start one with ql-worker --server URL --credential-file FILE (create its credential with ql workers create NAME)."},
		{"zh", none, "等待执行节点", "没有任何执行节点连接，因此无法运行。请用 ql-worker --server URL --credential-file FILE 启动一个（用 ql workers create NAME 创建其凭据）。"},
	} {
		if got := eventName(c.l, c.e.Name); got != c.name {
			t.Errorf("%s: %s is named %q, want %q", c.l, c.e.Name, got, c.name)
		}
		if got := pageText(eventFacts(c.l, c.e, "")); got != c.facts {
			t.Errorf("%s: %s says %q, want %q", c.l, c.e.Payload, got, c.facts)
		}
	}
}

// pageText is h as a reader reads it: its elements' text, unescaped.
func pageText(h template.HTML) string {
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(string(h), ""))
}

// A time a Run's event names — when it was scheduled for, when its next
// attempt starts — is a span a line does not break, in both languages, so
// a phone never parts a date from its time or a time from its offset; the
// words around it are escaped text.
func TestATimeARunsEventNamesIsNeverBrokenAcrossLines(t *testing.T) {
	t.Parallel()
	created := run.Event{Name: run.EventCreated, Payload: `{"scheduledForMs":1796356800000,"actor":"<b>x</b>"}`}
	retry := run.Event{Name: run.EventRetryWait, Payload: `{"nextAttempt":2,"availableAtMs":1796356800000}`}
	for _, l := range []string{"en", "zh"} {
		for _, e := range []run.Event{created, retry} {
			got := string(eventFacts(l, e, "Europe/Paris"))
			if !strings.Contains(got, `<span class="time">2026-12-04 05:00:00 UTC&#43;01:00</span>`) || strings.Contains(got, "<b>") {
				t.Errorf("%s: %s says %s: its time is not one unbroken span, or its text is not escaped", l, e.Name, got)
			}
		}
	}
}
