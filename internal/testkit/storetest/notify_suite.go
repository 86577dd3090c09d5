package storetest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// RunNotify runs the notification outbox's contract against an adapter:
// rows written by the transaction that finishes a Run and only by it, one
// per rule and Run, the recovered and consecutive_failures semantics, and
// the claim / fail / dead / retry cycle of delivery, and the listing and
// retry people use.
func RunNotify(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"OutboxRowIsWrittenWithTheFinishAndOnlyThen":                     testOutboxWithFinish,
		"OneNotificationPerRuleAndRun":                                   testOutboxDedupe,
		"RecoveredAndConsecutiveFailuresFollowTheRunHistory":             testOutboxHistory,
		"ClaimedRowsAreLeasedRetriedAndDeadLettered":                     testOutboxDelivery,
		"AFailuresReasonIsKeptWithItsTextAndClearedOnDelivery":           testFailureReasonKeptWithItsText,
		"ALedgerEntryNotifiesItsSkippedRulesWithTheDecision":             testOutboxSkipped,
		"ASkippedOccurrencesNotificationCarriesItsTriggersTitle":         testASkippedOccurrencesNotificationCarriesItsTriggersTitle,
		"ANotificationCarriesItsProjectsAndTasksTitles":                  testANotificationCarriesItsProjectsAndTasksTitles,
		"OnlyValidCanonicalSettingsAreStored":                            testOutboxSettings,
		"AListingPagesNewestFirstKeepingOnlyItsStateAndProject":          testOutboxListing,
		"AListingRefusesAStateThatIsNoneAndACursorThatIsNoID":            testOutboxListingRefusals,
		"ARetryOfNoneOrOfARowNotDeadIsRefusedWithItsReason":              testOutboxRetryRefusals,
		"ADeliveryRoundSendsSideBySideAndCountsOnlyAttemptsUnderWay":     testDeliveryInFlight,
		"ADeadNotificationIsLoggedWithoutARetryWait":                     testDeadLoggedWithoutRetry,
		"ANotificationDueWhileASlowSendWaitsIsSentMeanwhile":             testDeliveryClaimsWhatFallsDueMeanwhile,
		"ARoundThatRecordedARetryWakesItsLoopWhenTheBackoffEnds":         testRoundWakesAtTheBackoffsEnd,
		"AStopGivesBackTheSendItCutShortDueAtOnce":                       testAStopGivesBackTheSendItCutShort,
		"AClaimTakesNoRowPastItsChannelsShare":                           testClaimWithinChannelShares,
		"AHungChannelsBacklogNeverHidesAHealthyChannelFromAClaim":        testBacklogHidesNoChannel,
		"AReceiverThatDoesNotAnswerHoldsOnlyItsChannelsShare":            testSlowChannelHoldsOnlyItsShare,
		"AHealthyChannelKeepsFlowingWhileTwoChannelsDoNotAnswer":         testHealthyFlowsBesideSilentChannels(2),
		"AHealthyChannelKeepsFlowingWhileFourChannelsDoNotAnswer":        testHealthyFlowsBeforeHungSendsTimeOut(4),
		"AHealthyChannelKeepsFlowingWhileNineChannelsDoNotAnswer":        testHealthyFlowsBeforeHungSendsTimeOut(9),
		"AReceiverThatAnswersAgainGetsItsShareBack":                      testAnsweringReceiverGetsItsShareBack,
		"ReceiversThatAllHangHoldAtMostMaxUnderWaySendsAtOnce":           testHungSendsBoundedInAll,
		"ARefusalsTextIsRecordedEscapedAndCutAtACharacter":               testRefusalTextIsRecordedEscaped,
		"AChatServicesRefusalInA200AnswerIsAFailedAttempt":               testChatRefusalsAreFailures,
		"DingTalkAndFeishuRobotsInSignedModeTakeSignedChannels":          testDingTalkAndFeishuSignedModes,
		"ARedirectIsAFailedAttemptSayingWhereNeverFollowed":              testRedirectsAreReportedNotFollowed,
		"AReceiverAskingToWaitIsNotTriedAgainSooner":                     testReceiversAskingToWaitAreWaitedFor,
		"AReceiverAskingToWaitIsSentNoneOfItsChannelsOthersMeanwhile":    testAskedWaitHoldsTheChannel,
		"NewChannelKindsSettingsReachTheirNotificationsWhole":            testNewChannelsReachTheirNotificationsWhole,
		"AnEmailIsSubmittedOverSMTPAndRetriedWithItsMessageID":           testAnEmailIsSubmittedAndRetriedWithItsMessageID,
		"PushServicesAreTakenOnlyWithTheirAcknowledgement":               testPushServicesAreTakenOnlyWithTheirAcknowledgement,
		"ANotificationSaysWhatRanAndQuotesOutputOnlyWhereAsked":          testNotificationSaysWhatRanAndQuotesOutput,
		"ANotificationSaysWhichSignalKilledTheCommand":                   testANotificationSaysWhichSignalKilledTheCommand,
		"ARunsNotificationLinksToItsConsolePageWhenTheAddressIsKnown":    testNotificationLinksToTheRunsPage,
		"AWebhookSaysItsVersionAndTheRunsStartDurationAndOrigin":         testWebhookSaysItsVersionAndTheRunsTimesAndOrigin,
		"ASucceededRunNotifiesTheSucceededAndFinishedRulesWithItsOutput": testSucceededRunsNotify,
		"AScopedRuleIsToldOnlyOfItsTasksAndTriggersFailuresAndSkips":     testScopedRules,
		"RulesDifferingOnlyByScopeHaveTheirOwnKeysAndNotifications":      testScopedRulesAreDistinct,
		"ARetryByHandKeepsTheAttemptsCount":                              testRetryByHandKeepsTheAttempts,
		"ARetryByHandRecordsWhoAskedLast":                                testRetryByHandRecordsWhoAsked,
		"AReceiverThatComesBackGetsItsWaitingNotificationsInOrder":       testComingBackSendsTheWaitingInOrder,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// hook is a webhook channel the suite's rules name.
var hook = notify.Channel{Name: "ops", Kind: notify.Webhook, URL: "http://127.0.0.1:9/hook"}

// notifyDefs publishes a project with one trigger whose settings are
// rules, initialised so that admitNow admits it.
func notifyDefs(t *testing.T, f Fixture, name string, rules ...notify.Rule) defs {
	t.Helper()
	return notifyDefsOn(t, f, name, quietCron(t, f), rules...)
}

// notifyDefsOn is notifyDefs with the trigger on c.
func notifyDefsOn(t *testing.T, f Fixture, name string, c trigger.Cron, rules ...notify.Rule) defs {
	t.Helper()
	d := newDefs(t, f, name, c)
	if len(rules) > 0 {
		saveNotifications(t, f, &d, notify.Spec{Channels: []notify.Channel{hook, {Name: "chat", Kind: notify.Slack, URLSecret: "slack_url"}}, Rules: rules})
		got, err := f.Catalog.ProjectByName(t.Context(), name)
		if err != nil || got.Notifications != d.Project.Notifications {
			t.Fatalf("project read back with settings %q (%v), want %q", got.Notifications, err, d.Project.Notifications)
		}
	}
	initialise(t, f)
	return d
}

// saveNotifications validates spec and saves it as d's project's
// notification settings.
func saveNotifications(t *testing.T, f Fixture, d *defs, spec notify.Spec) {
	t.Helper()
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	d.Project.Notifications = spec.Encode()
	if _, err := f.Catalog.ProjectSave(t.Context(), d.Project); err != nil {
		t.Fatalf("save the notification settings: %v", err)
	}
}

// failedWith makes a project named name whose settings are spec, and one
// failed Run of its trigger: the notifications spec's rules owe.
func failedWith(t *testing.T, f Fixture, name string, spec notify.Spec) defs {
	t.Helper()
	d := newDefs(t, f, name, quietCron(t, f))
	saveNotifications(t, f, &d, spec)
	initialise(t, f)
	runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	return d
}

// outbox lists every outbox row, newest first.
func outbox(t *testing.T, f Fixture) []notify.Message {
	t.Helper()
	ms, _, err := f.Outbox.NotificationsList(t.Context(), notify.ListQuery{Limit: notify.MaxListed})
	if err != nil {
		t.Fatalf("list notifications: %v", err)
	}
	return ms
}

// runFinished admits the trigger's next occurrence and finishes its
// Run with end (it must end in that state), returning the Run's id. Call
// i is 10·i ms less late than call 0, and the adapter's clock never goes
// back, so each call's occurrence is later than the one before whatever
// time passed between them (a lateness growing with i gave the same
// instant twice whenever the adapter's clock moved exactly that much
// between two calls).
func runFinished(t *testing.T, f Fixture, triggerID string, i int, end run.AttemptState) string {
	t.Helper()
	id := admitNow(t, f, triggerID, runFinishedLateMs-int64(10*i))
	if got, err := f.Finish(t.Context(), id, end); err != nil || string(got) != string(end) {
		t.Fatalf("finish run %s %s: the Run ended %q (%v)", id, end, got, err)
	}
	return id
}

// runFinishedLateMs is how late runFinished's call 0 is; an admission
// after runFinished calls on the same trigger is less late than any.
const runFinishedLateMs = 900

func testOutboxWithFinish(t *testing.T, f Fixture) {
	d := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	plain := notifyDefs(t, f, "beta")

	id := admitNow(t, f, d.Trigger.TriggerID, 1000)
	if ms := outbox(t, f); len(ms) != 0 {
		t.Fatalf("an admitted, unfinished Run has %d outbox rows, want 0", len(ms))
	}
	if _, err := f.Finish(t.Context(), id, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	ms := outbox(t, f)
	if len(ms) != 1 {
		t.Fatalf("a failed Run with one matching rule has %d outbox rows, want 1", len(ms))
	}
	m := ms[0]
	if m.RunID != id || m.ProjectID != d.Project.ID || m.Event != notify.OnFailed || m.State != notify.Pending || m.Attempts != 0 ||
		!reflect.DeepEqual(m.Channel, hook) || m.Payload.ID != m.ID || m.Payload.Project != "alpha" || m.Payload.Trigger != "tick" ||
		m.Payload.RunState != "failed" || m.Payload.ScheduledFor == "" || m.Payload.FinishedAt == "" {
		t.Fatalf("outbox row %+v does not describe the failed Run %s of alpha/tick", m, id)
	}

	// A project without settings writes nothing, whatever its Runs do.
	runFinished(t, f, plain.Trigger.TriggerID, 1, run.AttemptFailed)
	// A Run that succeeds matches no failed rule.
	runFinished(t, f, d.Trigger.TriggerID, 2, run.AttemptSucceeded)
	if n := len(outbox(t, f)); n != 1 {
		t.Fatalf("%d outbox rows after a failure without rules and a success, want still 1", n)
	}

	// The row is part of the finishing transaction: when it cannot be
	// written, the Run does not finish either.
	id = admitNow(t, f, d.Trigger.TriggerID, runFinishedLateMs-100)
	if err := f.Tamper.FailNotificationInserts(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Finish(t.Context(), id, run.AttemptFailed); err == nil {
		t.Fatal("the finish committed although its outbox row could not be written")
	}
	got, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Run.State != run.Running {
		t.Fatalf("the Run is %s after a finish whose outbox row failed, want it unfinished", got.Run.State)
	}
	if n := len(outbox(t, f)); n != 1 {
		t.Fatalf("%d outbox rows after the failed finish, want 1", n)
	}
}

func testOutboxDedupe(t *testing.T, f Fixture) {
	rules := []notify.Rule{
		{On: notify.OnFailed, Channel: "ops"},
		{On: notify.OnFailed, Channel: "chat"},
		{On: notify.OnTimedOut, Channel: "ops"},
		{On: notify.OnLost, Channel: "ops"},
	}
	d := notifyDefs(t, f, "alpha", rules...)
	failed := runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	timedOut := runFinished(t, f, d.Trigger.TriggerID, 2, run.AttemptTimedOut)
	lost := runFinished(t, f, d.Trigger.TriggerID, 3, run.AttemptLost)
	// The failed Run's finish reported again (the worker's completion
	// retried, the executor's result recorded again) finishes nothing, so
	// it writes no second row for its rules.
	if again, err := f.FinishAgain(t.Context(), failed); (err != nil && !qlerror.Is(err, qlerror.FailedPrecondition)) || again != "" {
		t.Fatalf("the repeat of the failed Run's finish: reports %q, %v; want an answer or a refusal of the ended attempt, and nothing finished", again, err)
	}

	per := map[string]int{}
	keys := map[string]bool{}
	for _, m := range outbox(t, f) {
		per[fmt.Sprintf("%s %s %s", m.RunID, m.Event, m.Channel.Name)]++
		if keys[m.ID] {
			t.Fatalf("two rows share the idempotency key %s", m.ID)
		}
		keys[m.ID] = true
	}
	want := map[string]int{
		failed + " failed ops": 1, failed + " failed chat": 1, timedOut + " timed_out ops": 1, lost + " lost ops": 1,
	}
	if fmt.Sprint(per) != fmt.Sprint(want) {
		t.Fatalf("outbox rows per Run, event and channel: %v, want %v", per, want)
	}
}

func testOutboxHistory(t *testing.T, f Fixture) {
	d := notifyDefs(t, f, "alpha",
		notify.Rule{On: notify.OnRecovered, Channel: "ops"},
		notify.Rule{On: notify.OnConsecutiveFailures, Count: 2, Channel: "ops"})
	ends := []run.AttemptState{
		run.AttemptSucceeded, // nothing: no failure before
		run.AttemptFailed,    // streak 1
		run.AttemptTimedOut,  // streak 2: consecutive_failures
		run.AttemptLost,      // streak 3: nothing more for this streak
		run.AttemptSucceeded, // recovered
		run.AttemptSucceeded, // nothing
		run.AttemptFailed,    // streak 1
		run.AttemptFailed,    // streak 2 again: a new streak notifies again
	}
	runIDs := make([]string, len(ends))
	for i, end := range ends {
		runIDs[i] = runFinished(t, f, d.Trigger.TriggerID, i, end)
	}
	got := map[string]string{}
	for _, m := range outbox(t, f) {
		v := string(m.Event)
		if m.Event == notify.OnConsecutiveFailures {
			v = fmt.Sprintf("%s=%d", m.Event, m.Payload.ConsecutiveFailures)
		}
		got[m.RunID] = v
	}
	want := map[string]string{
		runIDs[2]: "consecutive_failures=2", runIDs[4]: "recovered", runIDs[7]: "consecutive_failures=2",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("notifications by Run: %v, want %v (Runs %v)", got, want, runIDs)
	}
}

// claimTen claims up to ten rows for an hour, with no channel's share in
// the way.
var claimTen = notify.Claim{Limit: 10, Lease: time.Hour, PerChannel: 10}

func testOutboxDelivery(t *testing.T, f Fixture) {
	d := notifyDefs(t, f, "alpha", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	runFinished(t, f, d.Trigger.TriggerID, 1, run.AttemptFailed)
	ctx := t.Context()
	claimed, err := f.Outbox.NotificationsClaim(ctx, claimTen)
	if err != nil || len(claimed) != 1 || claimed[0].Attempts != 1 {
		t.Fatalf("first claim: %+v, %v; want the row with attempt 1", claimed, err)
	}
	id := claimed[0].ID
	if again, err := f.Outbox.NotificationsClaim(ctx, claimTen); err != nil || len(again) != 0 {
		t.Fatalf("a claimed row was claimed again within its lease: %+v, %v", again, err)
	}
	if err := f.Outbox.NotificationFailed(ctx, id, 1, 0, false, notify.Failure{Reason: notify.ReasonReceiverStatus, Text: "the receiver answered 503"}); err != nil {
		t.Fatal(err)
	}
	claimed, err = f.Outbox.NotificationsClaim(ctx, claimTen)
	if err != nil || len(claimed) != 1 || claimed[0].ID != id || claimed[0].Attempts != 2 || claimed[0].LastError != "the receiver answered 503" {
		t.Fatalf("claim after a failure due now: %+v, %v; want the same row at attempt 2 with its last error", claimed, err)
	}
	// A late report of the first claim changes nothing.
	if err := f.Outbox.NotificationFailed(ctx, id, 1, 0, true, notify.Failure{Text: "stale"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Outbox.NotificationFailed(ctx, id, 2, time.Hour, true, notify.Failure{Text: "gave up"}); err != nil {
		t.Fatal(err)
	}
	dead, _, err := f.Outbox.NotificationsList(ctx, notify.ListQuery{State: notify.Dead, Limit: 10})
	if err != nil || len(dead) != 1 || dead[0].ID != id || dead[0].LastError != "gave up" {
		t.Fatalf("dead rows: %+v, %v; want the row with its last error", dead, err)
	}
	_, err = f.Outbox.NotificationRetry(ctx, "not-an-id", "ops")
	requireCode(t, err, qlerror.Invalid, "retry of a malformed id")
	m, err := f.Outbox.NotificationRetry(ctx, id, "ops")
	if err != nil || m.State != notify.Pending || m.Attempts != 2 {
		t.Fatalf("retry of a dead row: %+v, %v; want pending with its 2 attempts kept", m, err)
	}
	claimed, err = f.Outbox.NotificationsClaim(ctx, claimTen)
	if err != nil || len(claimed) != 1 || claimed[0].ID != id {
		t.Fatalf("claim after retry: %+v, %v", claimed, err)
	}
	if err := f.Outbox.NotificationDelivered(ctx, id); err != nil {
		t.Fatal(err)
	}
	done, _, err := f.Outbox.NotificationsList(ctx, notify.ListQuery{State: notify.Delivered, Limit: 10})
	if err != nil || len(done) != 1 || done[0].DeliveredAtMs == 0 {
		t.Fatalf("delivered rows: %+v, %v", done, err)
	}
	_, err = f.Outbox.NotificationRetry(ctx, id, "ops")
	requireCode(t, err, qlerror.FailedPrecondition, "retry of a delivered row")
}

// A decision that passes occurrences over writes, with its ledger entry,
// one notification per skipped rule whose reasons include the entry's —
// through the one-decision commit and through a page alike.
func testOutboxSkipped(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	rules := []notify.Rule{
		{On: notify.OnSkipped, Reasons: []string{"misfire"}, Channel: "ops"},
		{On: notify.OnSkipped, Channel: "chat"},
		{On: notify.OnSkipped, Reasons: []string{"paused"}, Channel: "ops"},
		{On: notify.OnFailed, Channel: "ops"},
	}
	one := notifyDefsOn(t, f, "alpha", c, rules...)
	paged := notifyDefsOn(t, f, "beta", c, rules...)
	for _, tc := range []struct {
		d    defs
		page bool
	}{{one, false}, {paged, true}} {
		fx := f
		fx.page = tc.page
		makeDue(t, fx, tc.d.Trigger.TriggerID, 6*60*60_000)
		p := commitParams(t, takeOne(t, fx))
		if res := commit(t, fx, p); res.Outcome != schedule.Skipped || len(p.Decision.Passed) != 1 {
			t.Fatalf("commit: %s (%s) passing over %+v; want one misfire entry", res.Outcome, res.Reason, p.Decision.Passed)
		}
		got := map[string]notify.Payload{}
		for _, m := range outbox(t, f) {
			if m.ProjectID != tc.d.Project.ID {
				continue
			}
			if m.Event != notify.OnSkipped || m.RunID != "" || m.State != notify.Pending || m.Payload.ID != m.ID {
				t.Fatalf("page %t: outbox row %+v; want a pending skipped notification without a Run", tc.page, m)
			}
			got[m.Channel.Name] = m.Payload
		}
		passed := p.Decision.Passed[0]
		if len(got) != 2 {
			t.Fatalf("page %t: notifications by channel %+v; want ops (misfire rule) and chat (every reason), not the paused rule", tc.page, got)
		}
		for ch, pl := range got {
			if pl.Reason != "misfire" || pl.Occurrences != passed.Count || pl.Project != tc.d.Project.Name || pl.Trigger != "tick" ||
				pl.ScheduledFor == "" || pl.LastScheduledFor == "" {
				t.Fatalf("page %t: %s notification %+v; want the misfire entry of %d occurrences of %s/tick", tc.page, ch, pl, passed.Count, tc.d.Project.Name)
			}
		}
	}
}

// Every Run's end reads the project's settings back, so a store takes only
// valid settings in their canonical form, and a project without any
// stores none.
func testOutboxSettings(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	got, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil || got.Notifications != "" {
		t.Fatalf("a project saved without settings reads back with %q (%v)", got.Notifications, err)
	}
	for _, bad := range []string{
		`{"rules":[]}`,
		`{"channels":[],"rules":[{"on":"failed","channel":"nowhere"}]}`,
		`not json`,
	} {
		p.Notifications = bad
		_, err := f.Catalog.ProjectSave(t.Context(), p)
		requireCode(t, err, qlerror.Invalid, "saving settings "+bad)
	}
}

// testClaimWithinChannelShares: a claim takes no row of a channel past
// its share, counting the rows under way and those it takes before; a
// channel is named within its project, so another project's channel of the
// same name has a share of its own.
func testClaimWithinChannelShares(t *testing.T, f Fixture) {
	share := notifyDefs(t, f, "share", notify.Rule{On: notify.OnFailed, Channel: "ops"}, notify.Rule{On: notify.OnFailed, Channel: "chat"})
	for i := range 5 {
		runFinished(t, f, share.Trigger.TriggerID, i, run.AttemptFailed)
	}
	other := notifyDefs(t, f, "other", notify.Rule{On: notify.OnFailed, Channel: "ops"})
	runFinished(t, f, other.Trigger.TriggerID, 0, run.AttemptFailed)
	shareOps := notify.ChannelRef{ProjectID: share.Project.ID, Channel: "ops"}
	shareChat := notify.ChannelRef{ProjectID: share.Project.ID, Channel: "chat"}
	otherOps := notify.ChannelRef{ProjectID: other.Project.ID, Channel: "ops"}
	ctx := t.Context()
	byChannel := func(ms []notify.Message) map[notify.ChannelRef]int {
		got := map[notify.ChannelRef]int{}
		for _, m := range ms {
			got[notify.RefOf(m)]++
		}
		return got
	}

	claimed, err := f.Outbox.NotificationsClaim(ctx, notify.Claim{Limit: 10, Lease: time.Hour, PerChannel: 2,
		InFlight: map[notify.ChannelRef]int{shareOps: 1}})
	want := map[notify.ChannelRef]int{shareOps: 1, shareChat: 2, otherOps: 1}
	if got := byChannel(claimed); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("claim with a share of 2 and one row of share/ops under way: %v (%v), want %v", got, err, want)
	}
	claimed, err = f.Outbox.NotificationsClaim(ctx, notify.Claim{Limit: 10, Lease: time.Hour, PerChannel: 10})
	if err != nil || len(claimed) != 7 {
		t.Fatalf("the last claim took %d (%v), want the 7 rows left of 11", len(claimed), err)
	}
}

// testBacklogHidesNoChannel: with 300 due rows of a channel whose receiver
// hangs ahead of a healthy channel's rows, the first claim (a process's
// first, nothing under way) takes the healthy channel's rows into the
// slots the hung channel's share leaves free, and so does a claim that
// leaves the hung channel its one slot: each channel's own first due rows
// are candidates, however long another channel's backlog.
func testBacklogHidesNoChannel(t *testing.T, f Fixture) {
	hung := notify.Channel{Name: "hung", Kind: notify.Webhook, URL: "http://127.0.0.1:9/hung"}
	healthy := notify.Channel{Name: "healthy", Kind: notify.Webhook, URL: "http://127.0.0.1:9/healthy"}
	d := newDefs(t, f, "backlog", quietCron(t, f))
	saveNotifications(t, f, &d, notify.Spec{Channels: []notify.Channel{hung, healthy},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "hung"}, {On: notify.OnTimedOut, Channel: "healthy"}}})
	initialise(t, f)
	runFinished(t, f, d.Trigger.TriggerID, 0, run.AttemptFailed)
	ms := outbox(t, f)
	if len(ms) != 1 || ms[0].Channel.Name != "hung" {
		t.Fatalf("outbox %+v, want the one row of the hung channel", ms)
	}
	const backlog = 300
	if err := f.SeedNotifications(t.Context(), ms[0].ID, backlog-1); err != nil {
		t.Fatalf("seed the hung channel's backlog: %v", err)
	}
	for i := 1; i <= 2*notify.PerChannelInFlight; i++ {
		runFinished(t, f, d.Trigger.TriggerID, i, run.AttemptTimedOut)
	}
	ref := func(name string) notify.ChannelRef { return notify.ChannelRef{ProjectID: d.Project.ID, Channel: name} }
	for _, tc := range []struct {
		name     string
		inFlight map[notify.ChannelRef]int
		want     map[notify.ChannelRef]int
	}{
		{"the first claim", nil,
			map[notify.ChannelRef]int{ref("hung"): notify.PerChannelInFlight, ref("healthy"): notify.PerChannelInFlight}},
		{"a later claim leaving the silent hung channel one slot", map[notify.ChannelRef]int{ref("hung"): notify.PerChannelInFlight - notify.SilentInFlight},
			map[notify.ChannelRef]int{ref("hung"): notify.SilentInFlight, ref("healthy"): notify.PerChannelInFlight}},
	} {
		claimed, err := f.Outbox.NotificationsClaim(t.Context(), notify.Claim{Limit: notify.MaxInFlight, Lease: time.Hour,
			PerChannel: notify.PerChannelInFlight, InFlight: tc.inFlight})
		got := map[notify.ChannelRef]int{}
		for _, m := range claimed {
			got[notify.RefOf(m)]++
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("%s, with %d due rows of the hung channel ahead of the healthy one's: claimed %v (%v), want %v", tc.name, backlog, got, err, tc.want)
		}
	}
}
