package storetest

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// titledNotifyFile is project shop whose trigger checkin-daily has the
// display title title and whose settings send its failures and skipped
// occurrences to one webhook.
const titledNotifyFile = `project: shop
notifications:
  channels:
    hook: {type: webhook, url: "http://127.0.0.1:9/hook"}
  rules:
    - {on: failed, channel: hook}
    - {on: skipped, channel: hook}
tasks:
  - {name: checkin, command: [/usr/bin/env, "true"]}
triggers:
  - {name: checkin-daily, title: "每日签到 [x](https://e.example) #1", task: checkin, cron: "7 * * * *", timezone: UTC, misfire: skip}
`

// testASkippedOccurrencesNotificationCarriesItsTriggersTitle: a ledger
// entry's notification carries the trigger's display title as a Run's
// does, in the same field and byte for byte, whichever store wrote it (the
// cluster writes a ledger entry's in SQL, a Run's and SQLite's in Go).
func testASkippedOccurrencesNotificationCarriesItsTriggersTitle(t *testing.T, f Fixture) {
	const title = "每日签到 [x](https://e.example) #1"
	doc, err := apply.Parse("shop.yaml", []byte(titledNotifyFile))
	if err != nil {
		t.Fatal(err)
	}
	got := skippedAndFailedNotifications(t, f, doc)
	for _, e := range []notify.Event{notify.OnSkipped, notify.OnFailed} {
		pl, ok := got[e]
		if !ok || pl.TriggerTitle != title || pl.Trigger != "checkin-daily" || pl.Project != "shop" {
			t.Fatalf("the %s notification: %+v (written: %t); want triggerTitle %q beside trigger checkin-daily of shop", e, pl, ok, title)
		}
	}
}

// testANotificationCarriesItsProjectsAndTasksTitles: a Run's and a ledger
// entry's notifications carry the project's and the task's display titles
// beside the trigger's, byte for byte, whichever store wrote them, and the
// ledger entry's names its task as a Run's does.
func testANotificationCarriesItsProjectsAndTasksTitles(t *testing.T, f Fixture) {
	const projectTitle, taskTitle = "商城 <b>", "签到 *任务*"
	file := strings.Replace(titledNotifyFile, "project: shop\n", "project: shop\ntitle: \""+projectTitle+"\"\n", 1)
	file = strings.Replace(file, "{name: checkin, command:", "{name: checkin, title: \""+taskTitle+"\", command:", 1)
	doc, err := apply.Parse("shop.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	got := skippedAndFailedNotifications(t, f, doc)
	for _, e := range []notify.Event{notify.OnSkipped, notify.OnFailed} {
		pl, ok := got[e]
		if !ok || pl.ProjectTitle != projectTitle || pl.TaskTitle != taskTitle || pl.Task != "checkin" || pl.Project != "shop" {
			t.Fatalf("the %s notification: %+v (written: %t); want projectTitle %q and taskTitle %q beside task checkin of shop", e, pl, ok, projectTitle, taskTitle)
		}
	}
}

// skippedAndFailedNotifications applies doc (project shop, trigger
// checkin-daily), passes three hours of its occurrences over and fails one
// Run, and returns the payloads of the notifications written, by event.
func skippedAndFailedNotifications(t *testing.T, f Fixture, doc *apply.Document) map[notify.Event]notify.Payload {
	t.Helper()
	applyFile(t, f, doc)
	p, err := f.Catalog.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := f.Catalog.TriggerByName(t.Context(), p.ID, "checkin-daily")
	if err != nil {
		t.Fatal(err)
	}
	initialise(t, f)
	makeDue(t, f, tg.TriggerID, 3*60*60_000)
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Skipped {
		t.Fatalf("commit: %s (%s), want occurrences passed over", res.Outcome, res.Reason)
	}
	runFinished(t, f, tg.TriggerID, 1, run.AttemptFailed)
	got := map[notify.Event]notify.Payload{}
	for _, m := range outbox(t, f) {
		got[m.Event] = m.Payload
	}
	return got
}
