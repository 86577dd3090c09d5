package apply

import (
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

const richFile = `project: rich
status: archived
notifications:
  channels:
    ops: {type: webhook, url: "https://hooks.example.com/q", signingSecret: hook-key}
    mail: {type: email, host: smtp.example.com, port: 465, tls: implicit, from: "青龙 <ql@example.com>", to: [ops@example.com, "值班 <oncall@example.cn>"], username: ql, passwordSecret: mail-pass}
    relay: {type: email, host: 127.0.0.1, tls: none, from: ql@example.com, to: ops@example.com}
    phone: {type: gotify, url: "https://gotify.example.com", tokenSecret: gotify-app}
    wechat: {type: pushplus, tokenSecret: pushplus-token, output: 10}
    sct: {type: serverchan, tokenSecret: sendkey}
  rules:
    - {on: failed, channel: ops}
    - {on: failed, channel: mail}
    - {on: lost, channel: relay}
    - {on: timed_out, channel: phone}
    - {on: recovered, channel: wechat}
    - {consecutive_failures: 2, channel: sct}
    - {on: skipped, reasons: [misfire, paused], channel: ops}
    - {consecutive_failures: 3, channel: ops}
    - {on: succeeded, tasks: [shell], channel: wechat}
    - {on: finished, triggers: [t1, t0], tasks: [argv], channel: phone}
    - {on: skipped, reasons: [misfire], triggers: [t1], channel: mail}
tasks:
  - name: argv
    command: ["/usr/bin/env", "date", "--utc"]
    enabled: false
    labels: {team: ops}
    env: {B: "2", A: {secret: api-token}}
    workingDir: /tmp
    timeout: 90s
    killGrace: 1500ms
    runAs: {user: svc, group: wheel}
    retry: {maxAttempts: 3, backoff: 10s, on: [lost, timed_out]}
    placement: {labels: {region: eu}}
  - name: shell
    shell: /bin/bash
    script: |
      echo "yes: no"
      echo 'true'
triggers:
  - name: t1
    task: shell
    cron: "*/10 * * * * *"
    timezone: Asia/Shanghai
    misfire: skip
    jitter: 30s
    startAt: "2026-01-01T00:00:00.250Z"
    endAt: "2030-01-01T08:00:00+08:00"
    overlap: queue_one
  - name: t0
    task: argv
    cron: "0 3 * * *"
    timezone: UTC
    enabled: false
    catchUpWindow: 10m
`

// An exported project parses back to the very specs it was exported from,
// so applying the export of the current revisions changes nothing.
func TestAnExportParsesBackToTheSameDefinitions(t *testing.T) {
	doc, err := Parse("rich.yaml", []byte(richFile))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []task.Revision
	taskIDs := map[string]string{}
	for i, td := range doc.Tasks {
		id := "0190a4f2-0000-7000-8000-00000000000" + string(rune('a'+i))
		taskIDs[td.Spec.Name] = id
		tasks = append(tasks, task.Revision{TaskID: id, Spec: td.Spec.Normalize()})
	}
	var triggers []trigger.Revision
	for _, tr := range doc.Triggers {
		triggers = append(triggers, trigger.Revision{TaskID: taskIDs[tr.TaskName], Spec: tr.Spec})
	}
	p := project.Project{Name: doc.Project, Status: doc.Status, Notifications: doc.Notifications.Encode()}
	out, err := Export(p, tasks, triggers, catalog.Titles{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("export.yaml", out)
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, out)
	}
	if back.Project != doc.Project || back.Status != doc.Status || back.Notifications.Encode() != p.Notifications {
		t.Fatalf("project round trip: %+v\n%s", back, out)
	}
	if len(back.Tasks) != 2 || len(back.Triggers) != 2 || back.Triggers[0].Spec.Name != "t0" {
		t.Fatalf("export holds %d tasks and %d triggers, want 2 and 2 sorted by name:\n%s", len(back.Tasks), len(back.Triggers), out)
	}
	for _, bt := range back.Tasks {
		want := tasks[0].Spec
		if bt.Spec.Name == tasks[1].Spec.Name {
			want = tasks[1].Spec
		}
		if got := bt.Spec.Normalize(); !reflect.DeepEqual(got, want) {
			t.Errorf("task %s: exported as %+v, was %+v", bt.Spec.Name, got, want)
		}
	}
	for _, bt := range back.Triggers {
		for _, orig := range doc.Triggers {
			if orig.Spec.Name == bt.Spec.Name && (!reflect.DeepEqual(bt.Spec, orig.Spec) || bt.TaskName != orig.TaskName) {
				t.Errorf("trigger %s: exported as %+v on %s, was %+v on %s", bt.Spec.Name, bt.Spec, bt.TaskName, orig.Spec, orig.TaskName)
			}
		}
	}
	if !strings.Contains(string(out), "tasks: [argv]") || !strings.Contains(string(out), "triggers: [t0, t1]") || !strings.Contains(string(out), `"on": succeeded`) {
		t.Errorf("the rules' events and scopes should read as written:\n%s", out)
	}
	if !strings.Contains(string(out), "timeout: 90s") || !strings.Contains(string(out), "killGrace: 1500ms") {
		t.Errorf("durations should read as written:\n%s", out)
	}
}

// A channel's language and time zone are read from the definitions file,
// written back by an export and read again the same.
func TestAChannelsLanguageAndZoneSurviveExportAndParse(t *testing.T) {
	const file = `project: cn
notifications:
  channels:
    phone: {type: bark, url: "https://api.day.app/key", language: zh, timeZone: Asia/Shanghai}
    ops: {type: dingtalk, url: "https://oapi.dingtalk.com/robot/send", language: en}
  rules:
    - {on: failed, channel: phone}
    - {on: failed, channel: ops}
`
	doc, err := Parse("cn.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	phone, _ := doc.Notifications.Channel("phone")
	if phone.Language != notify.Chinese || phone.TimeZone != "Asia/Shanghai" {
		t.Fatalf("the file's channel read as %+v", phone)
	}
	p := project.Project{Name: doc.Project, Notifications: doc.Notifications.Encode()}
	out, err := Export(p, nil, nil, catalog.Titles{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "language: zh") || !strings.Contains(string(out), "timeZone: Asia/Shanghai") {
		t.Fatalf("the export leaves out the language or the zone:\n%s", out)
	}
	back, err := Parse("export.yaml", out)
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, out)
	}
	if back.Notifications.Encode() != p.Notifications {
		t.Fatalf("read back as %s, was %s", back.Notifications.Encode(), p.Notifications)
	}
}
