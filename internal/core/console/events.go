package console

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/qinglong/qinglong/internal/core/run"
)

// runEventWords name a Run's events in both languages, as the Run page's
// events list says them: what happened, in words, beside the event's
// stored name and payload (which stay English, as in the API). An event
// without a word here (a newer server's) is shown by its stored name.
var runEventWords = map[string]map[string]string{
	"en": {
		run.EventCreated: "created", run.EventQueued: "queued", run.EventDispatching: "offered to a worker",
		run.EventRunning: "running", run.EventAttemptStarted: "attempt started", run.EventSucceeded: "succeeded",
		run.EventFailed: "failed", run.EventTimedOut: "timed out", run.EventCancelled: "cancelled", run.EventLost: "lost",
		run.EventRetryWait: "waiting to retry", run.EventCancelRequested: "cancel asked", run.EventWaiting: "waiting for a worker",
	},
	"zh": {
		run.EventCreated: "已创建", run.EventQueued: "已排队", run.EventDispatching: "已分派给执行节点",
		run.EventRunning: "运行中", run.EventAttemptStarted: "尝试已启动", run.EventSucceeded: "成功",
		run.EventFailed: "失败", run.EventTimedOut: "超时", run.EventCancelled: "已取消", run.EventLost: "已丢失",
		run.EventRetryWait: "等待重试", run.EventCancelRequested: "已请求取消", run.EventWaiting: "等待执行节点",
	},
}

// eventFactWords are the words of the facts eventFacts reads from a
// payload, each a format taking the fact's value.
var eventFactWords = map[string]map[string]string{
	"en": {"attempt": "attempt %v", "exitCode": "exit code %v", "errorCode": "%s", "errorWhy": "%s (%s)", "pid": "pid %v", "actor": "by %s",
		"reason": "reason: %s", "next": "attempt %v from %s", "scheduled": "scheduled for %s"},
	"zh": {"attempt": "第 %v 次尝试", "exitCode": "退出码 %v", "errorCode": "%s", "errorWhy": "%s（%s）", "pid": "进程号 %v", "actor": "操作者：%s",
		"reason": "原因：%s", "next": "第 %v 次尝试于 %s 开始", "scheduled": "计划时间 %s"},
}

// eventReasonWords say in Chinese the reasons the stores write into a
// Run's events (a queued event's retry or a worker's grant going back, a
// cancelled event's cause), which they store in English; a reason without
// a word here (a newer server's) is shown as stored.
var eventReasonWords = map[string]map[string]string{
	"zh": {
		"retry":                                "重试",
		"grant_expired_unstarted":              "分派给执行节点后未在租约内启动",
		"session_ended":                        "执行节点结束了会话，未启动它",
		"session_replaced":                     "执行节点的会话被新进程取代，未启动它",
		"grant_given_back":                     "执行节点交还了它",
		string(run.CancelledBeforeStart):       "启动前被取消",
		string(run.CancelledAfterLost):         "丢失后被取消",
		string(run.CancelledByLaterOccurrence): "被后一次触发取消（overlap: cancel_previous）",
		string(run.CancelledByManualRun):       "被一次手动运行取消（overlap: cancel_previous）",
	},
}

// eventName is the page's name of a Run's event in language l.
func eventName(l, name string) string {
	if s, ok := runEventWords[l][name]; ok {
		return s
	}
	return name
}

// eventFacts is what e's payload says that a reader of the Run page wants,
// in language l and times in zone: the attempt, its exit and error codes
// (the error code with its meaning where the page knows one), the process,
// who asked, the reason, when the next attempt may start and, for the
// created event, the time the Run was scheduled for; "" when it says none
// of them (or is not a JSON object). A run.waiting event says instead why
// no worker could take the Run when it was noted, in the words of the
// page's "Why it waits". The payload itself stays on the page as it is
// stored.
func eventFacts(l string, e run.Event, zone string) template.HTML {
	if e.Name == run.EventWaiting {
		var n run.WaitingNote
		if json.Unmarshal([]byte(e.Payload), &n) != nil || n.Reason == "" {
			return ""
		}
		w := n.Waiting()
		return template.HTML(escapeText(waitingText(l, &w))) //nolint:gosec // G203: escaped
	}
	var p map[string]any
	if json.Unmarshal([]byte(e.Payload), &p) != nil {
		return ""
	}
	w := eventFactWords[l]
	var out []string
	// A time is a span a line does not break (unbroken), the rest text.
	say := func(key string, args ...any) { out = append(out, string(formatText(w[key], args...))) }
	if v, ok := p["attempt"]; ok {
		say("attempt", v)
	}
	if v, ok := p["exitCode"]; ok {
		say("exitCode", v)
	}
	if v, ok := p["errorCode"].(string); ok && v != "" {
		if why := attemptWhy(l, v); why != "" {
			v = fmt.Sprintf(w["errorWhy"], why, v)
		}
		say("errorCode", v)
	}
	if v, ok := p["pid"]; ok {
		say("pid", v)
	}
	if v, ok := p["actor"].(string); ok && v != "" {
		say("actor", v)
	}
	if v, ok := p["reason"].(string); ok && v != "" {
		if words, ok := eventReasonWords[l][v]; ok {
			v = words
		}
		say("reason", v)
	}
	if n, ok := p["nextAttempt"]; ok {
		if at, ok := p["availableAtMs"].(float64); ok {
			say("next", n, unbroken(when(int64(at), zone)))
		}
	}
	if at, ok := p["scheduledForMs"].(float64); ok && e.Name == run.EventCreated {
		say("scheduled", unbroken(when(int64(at), zone)))
	}
	sep := " · "
	if l == "zh" {
		sep = "；"
	}
	return template.HTML(strings.Join(out, sep)) //nolint:gosec // G203: each fact is escaped but its times' spans
}
