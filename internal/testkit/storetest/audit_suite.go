package storetest

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// RunAudit runs the audit trail's guarantees: every change people make
// to tokens, accounts, project pauses and notifications is recorded with
// who made it, in the change's own transaction, and the trail, merged
// with the trigger schedule's records, lists newest first in stable
// pages, holding no secret.
func RunAudit(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"RevokingATokenRecordsWhoRevokedItInTheSameTransaction":       testAuditTokenRevoke,
		"EveryChangeToAnAccountIsRecordedWithWhoMadeIt":               testAuditUsers,
		"AChangeWhoseRecordCannotBeWrittenDoesNotHappen":              testAuditNoChangeWithoutRecord,
		"AProjectPauseAndANotificationRetryAreRecordedWithTheProject": testAuditProjectAndNotification,
		"TheAuditTrailNeverHoldsASecret":                              testAuditNoSecret,
		"TheTrailMergesTriggerRecordsAndPagesStablyNewestFirst":       testAuditPagesMerged,
		"TheTrailFiltersByActorActionProjectAndBoundProjects":         testAuditFilters,
		"ArchivingAndActivatingAProjectAreRecordedWithWhoAppliedIt":   testAuditProjectStatus,
		"DisablingADisabledUserOrEnablingAnEnabledOneRecordsNothing":  testAuditUserNoop,
		"AChannelTestIsRecordedWithWhoTestedItAndHowItWent":           testAuditChannelTest,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// auditAll is the whole trail, newest first, read a page at a time.
func auditAll(t *testing.T, f Fixture, q audit.Query) []audit.Record {
	t.Helper()
	var out []audit.Record
	for {
		page, err := f.Audit.AuditList(t.Context(), q)
		if err != nil {
			t.Fatalf("audit list %+v: %v", q, err)
		}
		out = append(out, page.Records...)
		if page.Next == "" {
			return out
		}
		q.After = page.Next
	}
}

// auditLines are records as "action actor kind name project note", in
// the trail's order.
func auditLines(rs []audit.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = strings.Join([]string{string(r.Action), r.Actor, string(r.ObjectKind), r.ObjectName, r.Project, r.Note}, " ")
	}
	return out
}

func testAuditTokenRevoke(t *testing.T, f Fixture) {
	before, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := apitoken.Create(t.Context(), f.Tokens, "bob", ids.New(), "deploy", apitoken.Operate, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Tokens.TokenRevoke(t.Context(), "deploy", "api:admin-ci@192.0.2.9"); err != nil {
		t.Fatal(err)
	}
	requireCode(t, f.Tokens.TokenRevoke(t.Context(), "deploy", "carol"), qlerror.NotFound, "revoking a revoked token")
	got := auditAll(t, f, audit.Query{})
	want := []string{
		"token.revoked api:admin-ci@192.0.2.9 token deploy  ",
		"token.created bob token deploy  scope operate, projects alpha",
	}
	if lines := auditLines(got); !slices.Equal(lines, want) {
		t.Fatalf("trail %q; want the revoke by who revoked it over the creation, and nothing of the refused revoke", lines)
	}
	if got[0].ObjectID != tok.ID || got[0].AtMs < before || got[0].AtMs < got[1].AtMs {
		t.Fatalf("revoke record %+v; want the token's id %s and the store's time of the revoke (not before %d)", got[0], tok.ID, before)
	}
	listed, err := f.Tokens.TokenList(t.Context())
	if err != nil || len(listed) != 1 || listed[0].RevokedAtMs == nil || *listed[0].RevokedAtMs != got[0].AtMs {
		t.Fatalf("tokens %+v, %v; want the one revoked at its record's time %d", listed, err, got[0].AtMs)
	}
}

func testAuditUsers(t *testing.T, f Fixture) {
	ctx := t.Context()
	u, err := f.Users.UserCreate(ctx, account.NewUser{ID: ids.New(), Name: "heidi", Role: account.Operator, Hash: hashA, Actor: "root", Projects: []string{"alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		f.Users.UserSetProjects(ctx, "heidi", []string{"alpha", "beta"}, "lead"),
		f.Users.UserSetProjects(ctx, "heidi", nil, "root"),
		f.Users.UserSetPassword(ctx, "heidi", hashB, "console:user:lead@192.0.2.1"),
		errOnly(f.Users.UserDisable(ctx, "heidi", "lead")),
		errOnly(f.Users.UserEnable(ctx, "heidi", hashA, "lead")),
		f.UserAuth.(account.PasswordChanger).UserChangePassword(ctx, u.ID, hashA, hashB, "console:user:heidi@192.0.2.2"),
		f.Users.UserDelete(ctx, "heidi", "root"),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	requireCode(t, errOnly(f.Users.UserDisable(ctx, "heidi", "root")), qlerror.NotFound, "disabling a deleted user")
	requireCode(t, f.Users.UserSetProjects(ctx, "heidi", []string{"alpha"}, "root"), qlerror.NotFound, "binding a deleted user")
	want := []string{
		"user.deleted root user heidi  ",
		"user.password_changed console:user:heidi@192.0.2.2 user heidi  ",
		"user.enabled lead user heidi  ",
		"user.disabled lead user heidi  ",
		"user.password_set console:user:lead@192.0.2.1 user heidi  ",
		"user.projects_set root user heidi  every project",
		"user.projects_set lead user heidi  projects alpha, beta",
		"user.created root user heidi  role operator, projects alpha",
	}
	got := auditAll(t, f, audit.Query{})
	if lines := auditLines(got); !slices.Equal(lines, want) {
		t.Fatalf("trail %q; want %q", lines, want)
	}
	for _, r := range got {
		if r.ObjectID != u.ID {
			t.Fatalf("record %+v names id %s; want the account's %s, kept after its deletion", r, r.ObjectID, u.ID)
		}
	}
}

// testAuditNoChangeWithoutRecord: once the trail refuses writes, a revoke,
// a disable, a project pause and an archive fail whole: the token stays
// active, the account enabled, the project running and active.
func testAuditNoChangeWithoutRecord(t *testing.T, f Fixture) {
	ctx := t.Context()
	if _, _, err := apitoken.Create(ctx, f.Tokens, "root", ids.New(), "deploy", apitoken.Read, 0); err != nil {
		t.Fatal(err)
	}
	createUser(t, f, "ivan", account.Viewer)
	newDefs(t, f, "alpha", quietCron(t, f))
	if err := f.Tamper.FailAuditWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.Tokens.TokenRevoke(ctx, "deploy", "root"); err == nil {
		t.Fatal("a revoke whose record the trail refused succeeded")
	}
	if err := errOnly(f.Users.UserDisable(ctx, "ivan", "root")); err == nil {
		t.Fatal("a disable whose record the trail refused succeeded")
	}
	if _, err := f.ProjectPauser.ProjectPause(ctx, schedule.ProjectPauseRequest{Project: "alpha", Pause: true, Actor: "root"}); err == nil {
		t.Fatal("a project pause whose record the trail refused succeeded")
	}
	if err := applyAs(t, f, statusFile(t, "alpha", project.Archived), "root"); err == nil {
		t.Fatal("an archive whose record the trail refused succeeded")
	}
	if tokens, err := f.Tokens.TokenList(ctx); err != nil || len(tokens) != 1 || tokens[0].RevokedAtMs != nil {
		t.Fatalf("tokens %+v, %v; want the token still active", tokens, err)
	}
	if users, err := f.Users.UserList(ctx); err != nil || len(users) != 1 || users[0].DisabledAtMs != nil {
		t.Fatalf("users %+v, %v; want the account still enabled", users, err)
	}
	if st, err := f.ProjectPauses.ProjectPauseRead(ctx, "alpha"); err != nil || st.Paused {
		t.Fatalf("project %+v, %v; want it still running", st, err)
	}
	if p, err := f.Catalog.ProjectByName(ctx, "alpha"); err != nil || p.Status != project.Active {
		t.Fatalf("project %+v, %v; want it still active", p, err)
	}
}

func testAuditProjectAndNotification(t *testing.T, f Fixture) {
	ctx := t.Context()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	d := failedWith(t, f, "alpha", notify.Spec{Channels: []notify.Channel{{Name: "oncall", Kind: notify.Webhook, URL: srv.URL}},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "oncall"}}})
	claimed, err := f.Outbox.NotificationsClaim(ctx, claimTen)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %+v, %v; want the one notification", claimed, err)
	}
	if err := f.Outbox.NotificationFailed(ctx, claimed[0].ID, claimed[0].Attempts, time.Hour, true, notify.Failure{Text: "gave up"}); err != nil {
		t.Fatal(err)
	}
	pauseProject(t, f, "alpha", true, "release freeze")
	if _, err := f.Outbox.NotificationRetry(ctx, claimed[0].ID, "api:ops@192.0.2.3"); err != nil {
		t.Fatal(err)
	}
	pauseProject(t, f, "alpha", false, "")
	pauseProject(t, f, "alpha", false, "")
	got := auditAll(t, f, audit.Query{Project: "alpha"})
	var own []audit.Record
	for _, r := range got {
		if r.ObjectKind != audit.KindTrigger {
			own = append(own, r)
		}
	}
	want := []string{
		"project.resumed conformance project alpha alpha 1 trigger(s)",
		fmt.Sprintf("notification.retried api:ops@192.0.2.3 notification oncall alpha %s of Run %s", notify.OnFailed, claimed[0].RunID),
		"project.paused conformance project alpha alpha 1 trigger(s): release freeze",
	}
	if lines := auditLines(own); !slices.Equal(lines, want) {
		t.Fatalf("trail of project alpha %q; want %q (a resume of a running project records nothing)", lines, want)
	}
	if own[0].ObjectID != d.Project.ID || own[1].ObjectID != claimed[0].ID {
		t.Fatalf("records %+v; want the project's id %s and the notification's %s", own, d.Project.ID, claimed[0].ID)
	}
}

func testAuditNoSecret(t *testing.T, f Fixture) {
	ctx := t.Context()
	secret, _, err := apitoken.Create(ctx, f.Tokens, "root", ids.New(), "deploy", apitoken.Admin, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	u := createUser(t, f, "judy", account.Owner)
	if err := f.Users.UserSetPassword(ctx, "judy", hashB, "root"); err != nil {
		t.Fatal(err)
	}
	if err := f.UserAuth.(account.PasswordChanger).UserChangePassword(ctx, u.ID, hashB, hashA, "judy"); err != nil {
		t.Fatal(err)
	}
	if err := f.Tokens.TokenRevoke(ctx, "deploy", "root"); err != nil {
		t.Fatal(err)
	}
	got := auditAll(t, f, audit.Query{})
	if len(got) != 5 {
		t.Fatalf("trail %q; want the 5 changes", auditLines(got))
	}
	digest := apitoken.Digest(secret)
	for _, r := range got {
		text := fmt.Sprintf("%+v", r)
		for _, s := range []string{secret, hex.EncodeToString(digest), string(digest), hashA, hashB, "$argon2id"} {
			if strings.Contains(text, s) {
				t.Fatalf("record %s holds a secret (%q)", text, s)
			}
		}
	}
}

func testAuditPagesMerged(t *testing.T, f Fixture) {
	ctx := t.Context()
	d := newDefs(t, f, "alpha", quietCron(t, f))
	pause(t, f, d.Trigger.TriggerID, true, "disk")
	for i := range 5 {
		if _, _, err := apitoken.Create(ctx, f.Tokens, "root", ids.New(), fmt.Sprintf("t%d", i), apitoken.Read, 0); err != nil {
			t.Fatal(err)
		}
	}
	pause(t, f, d.Trigger.TriggerID, false, "")
	whole := auditAll(t, f, audit.Query{})
	if len(whole) != 7 || whole[0].Action != audit.TriggerResumed || whole[6].Action != audit.TriggerPaused ||
		whole[6].ObjectName != d.Trigger.Spec.Name || whole[6].Project != "alpha" || whole[6].ObjectID != d.Trigger.TriggerID || whole[6].Note != "disk" {
		t.Fatalf("trail %q; want the trigger's resume, the 5 tokens and its pause, newest first, the trigger named with its project", auditLines(whole))
	}
	first, err := f.Audit.AuditList(ctx, audit.Query{Limit: 3})
	if err != nil || len(first.Records) != 3 || first.Next == "" {
		t.Fatalf("first page %+v, %v; want 3 records and a next", first, err)
	}
	// Records written after the first page never shift the pages after it.
	for i := range 3 {
		if _, _, err := apitoken.Create(ctx, f.Tokens, "root", ids.New(), fmt.Sprintf("late%d", i), apitoken.Read, 0); err != nil {
			t.Fatal(err)
		}
	}
	rest := auditAll(t, f, audit.Query{Limit: 3, After: first.Next})
	paged := append(slices.Clone(first.Records), rest...)
	if !slices.EqualFunc(paged, whole, func(a, b audit.Record) bool { return a.Key == b.Key }) {
		t.Fatalf("paged %q; want the trail as it was read whole %q", auditLines(paged), auditLines(whole))
	}
	for i := 1; i < len(whole); i++ {
		if whole[i].AtMs > whole[i-1].AtMs {
			t.Fatalf("trail not newest first: %+v before %+v", whole[i-1], whole[i])
		}
	}
	_, err = f.Audit.AuditList(ctx, audit.Query{After: "yesterday"})
	requireCode(t, err, qlerror.Invalid, "a cursor no listing gave")
	_, err = f.Audit.AuditList(ctx, audit.Query{Action: "token.stolen"})
	requireCode(t, err, qlerror.Invalid, "an unknown action")
}

func testAuditFilters(t *testing.T, f Fixture) {
	ctx := t.Context()
	alpha := newDefs(t, f, "alpha", quietCron(t, f))
	newDefs(t, f, "beta", quietCron(t, f))
	pause(t, f, alpha.Trigger.TriggerID, true, "")
	if _, err := f.ProjectPauser.ProjectPause(ctx, schedule.ProjectPauseRequest{Project: "beta", Pause: true, Actor: "api:ci@192.0.2.4"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ProjectPauser.ProjectPause(ctx, schedule.ProjectPauseRequest{Project: "beta", Pause: false, Actor: "api:ci@192.0.2.5"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := apitoken.Create(ctx, f.Tokens, "api:ci@192.0.2.4", ids.New(), "deploy", apitoken.Read, 0); err != nil {
		t.Fatal(err)
	}
	count := func(q audit.Query) int { return len(auditAll(t, f, q)) }
	for what, c := range map[string]struct {
		q    audit.Query
		want int
	}{
		"an actor at every address":          {audit.Query{Actor: "api:ci"}, 5},
		"an actor at one address":            {audit.Query{Actor: "api:ci@192.0.2.4"}, 3},
		"an actor's name alone is no prefix": {audit.Query{Actor: "api:c"}, 0},
		"an action":                          {audit.Query{Action: audit.ProjectPaused}, 1},
		"a project":                          {audit.Query{Project: "beta"}, 4},
		"bound to alpha":                     {audit.Query{Projects: []string{"alpha"}}, 1},
		"bound to no project":                {audit.Query{Projects: []string{}}, 0},
	} {
		if got := count(c.q); got != c.want {
			t.Errorf("%s: %d records (%q); want %d", what, got, auditLines(auditAll(t, f, c.q)), c.want)
		}
	}
	newest := auditAll(t, f, audit.Query{})[0]
	if got := auditAll(t, f, audit.Query{SinceMs: newest.AtMs + 1}); len(got) != 0 {
		t.Fatalf("since after the newest record: %q; want none", auditLines(got))
	}
}
