package httpapi

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// Each error of an invalid file names, beside its message, the task or
// trigger it is about and the key path it is at, so a client acts on it
// without reading the English: a mistake in a field (named whether it
// was found before or after the entry's name), a trigger naming a task
// the file lacks, a name given twice, a mistake at the top of the file.
// The message, line and column stay as they were.
func TestEachErrorOfAFileNamesItsEntryAndKeyPath(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	h := authed(t, Config{Definitions: &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	const file = "project: demo\n" +
		"notifications:\n  rules:\n    - {on: exploded, channel: ops}\n  channels:\n    ops: {type: webhook, url: 'https://example.com/hook'}\n" +
		"tasks:\n" +
		"  - name: a\n    scirpt: echo\n" +
		"  - name: b\n    script: echo\n    timeout: 5x\n" +
		"triggers:\n" +
		"  - name: t\n    task: nope\n    cron: '0 * * * *'\n    timezone: UTC\n" +
		"  - name: v\n    task: b\n    cron: '0 * * * *'\n    timezone: Mars/Olympus\n" +
		"  - name: v\n    task: b\n    cron: '0 * * * *'\n    timezone: UTC\n"
	status, body := postDefinitions(t, h, file)
	want := []fileError{
		{Line: 4, Path: "notifications.rules[0].on", Reason: "field_not_one_of"},
		{Line: 9, Task: "a", Path: "tasks[0]", Reason: "defs_unknown_field", Message: `task: unknown field "scirpt"`},
		{Line: 12, Task: "b", Path: "tasks[1].timeout", Reason: "field_not_a_duration", Message: `task "b": task.timeout: `},
		{Line: 14, Trigger: "t", Path: "triggers[0].task", Reason: "defs_unknown_task", Message: `trigger "t": trigger.task "nope" is not a task of this file`},
		{Line: 21, Trigger: "v", Path: "triggers[1].timezone", Reason: "cron_timezone_unknown", Message: `trigger "v": trigger.timezone: `},
		{Line: 22, Trigger: "v", Path: "triggers[2].name", Reason: "defs_defined_twice", Message: `trigger "v" is defined twice`},
	}
	if status != http.StatusBadRequest || len(body.Error.Errors) != len(want) {
		t.Fatalf("%d %+v; want 400 and %d errors", status, body.Error, len(want))
	}
	for i, w := range want {
		got := body.Error.Errors[i]
		if got.Line != w.Line || got.Task != w.Task || got.Trigger != w.Trigger || got.Path != w.Path || string(got.Reason) != string(w.Reason) ||
			!strings.HasPrefix(got.Message, w.Message) {
			t.Errorf("error %d: %+v; want at line %d about task %q / trigger %q at %q (%s), saying %q", i+1, got, w.Line, w.Task, w.Trigger, w.Path, w.Reason, w.Message)
		}
	}
	if p := body.Error.Errors[3].Params; p["task"] != "nope" || p["trigger"] != "t" {
		t.Errorf("the missing task's params %v; want the trigger and the task it names", p)
	}
}

// A file the store refuses to publish for one of its entries (here: a
// change to a task of an archived project) is answered with the error at
// that entry's line, naming the entry and its key path. (Only an embedded
// database's server publishes over the API: a cluster replica runs as the
// runtime role, which may not.)
func TestAStoreRefusalOfAnEntryNamesIt(t *testing.T) {
	t.Parallel()
	h := authed(t, Config{Definitions: &catalog.Service{Store: sqlitetest.Open(t), Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	for _, f := range []string{
		"project: demo\nstatus: active\ntasks:\n  - name: a\n    script: echo one\ntriggers: []\n",
		"project: demo\nstatus: archived\ntasks:\n  - name: a\n    script: echo one\ntriggers: []\n",
	} {
		if status, body := postDefinitions(t, h, f); status != http.StatusOK {
			t.Fatalf("%d %+v", status, body.Error)
		}
	}
	status, body := postDefinitions(t, h, "project: demo\nstatus: archived\ntasks:\n  - name: a\n    script: echo two\ntriggers: []\n")
	e := body.Error
	if status != http.StatusConflict || len(e.Errors) != 1 {
		t.Fatalf("a change in an archived project: %d %+v; want 409 and the one error", status, e)
	}
	if got := e.Errors[0]; got.Line != 4 || got.Task != "a" || got.Trigger != "" || got.Path != "tasks[0]" || got.Reason != "publish_to_archived_project" ||
		!strings.HasPrefix(got.Message, `task "a": project "demo" is archived`) {
		t.Errorf("%+v; want at line 4 about task a (tasks[0]), publish_to_archived_project, its message as before", got)
	}
}

// An email channel with several mistakes is one error of the file whose
// message says them all; its reason and params stay the first mistake's,
// and its reasons list every one, each with the values its sentence
// names, so a client words each in its own language.
func TestAnEmailChannelRefusalCarriesTheReasonOfEveryMistake(t *testing.T) {
	t.Parallel()
	h := authed(t, Config{Definitions: &catalog.Service{Store: sqlitetest.Open(t), Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	const file = "project: demo\n" +
		"notifications:\n  rules:\n    - {on: failed, channel: mail}\n  channels:\n" +
		"    mail: {type: email, host: 'bad host', from: 'not-an-address', to: ['ops@example.com', 'ops@example.com']}\n" +
		"tasks:\n  - name: a\n    script: echo\n"
	status, body := postDefinitions(t, h, file)
	if status != http.StatusBadRequest || len(body.Error.Errors) != 1 {
		t.Fatalf("%d %+v; want 400 and one error", status, body.Error)
	}
	e := body.Error.Errors[0]
	var got []string
	for _, r := range e.Reasons {
		got = append(got, string(r.Reason)+" "+r.Params["field"])
	}
	want := []string{"notify_mail_host notifications.channels.mail.host", "notify_mail_address notifications.channels.mail.from", "field_given_twice notifications.channels.mail.to"}
	if !slices.Equal(got, want) {
		t.Fatalf("reasons %q, want %q (%+v)", got, want, e)
	}
	if e.Reason != e.Reasons[0].Reason || e.Params["field"] != e.Reasons[0].Params["field"] {
		t.Errorf("reason %s %v, want the first mistake's, as before", e.Reason, e.Params)
	}
	for _, w := range []string{"bad host", "not-an-address", "given twice"} {
		if !strings.Contains(e.Message, w) {
			t.Errorf("the message %q does not say %q", e.Message, w)
		}
	}
}
