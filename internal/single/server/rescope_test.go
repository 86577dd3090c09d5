package server

import (
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/subscription"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// storedUnscoped publishes into dir's database, in project panel, the
// subscription of url as an earlier release wrote its pull task: its
// script giving git the credential helper for every URL, its trigger of
// the same name, its token in the env.
func storedUnscoped(t *testing.T, dir, url string) {
	t.Helper()
	p, why := crontab.PullOf(url, "")
	if why != "" {
		t.Fatal(why)
	}
	unscoped := strings.Replace(p.Script, "'credential.https://git.example.com.helper=", "'credential.helper=", 1)
	if unscoped == p.Script {
		t.Fatalf("the pull script holds no scoped helper to write unscoped:\n%s", p.Script)
	}
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	text, err := apply.NewPullFile(t.Context(), b.Store, apply.PullEntry{Project: "panel", Name: p.Name, Title: p.Title, Script: unscoped,
		Labels: map[string]string{crontab.LabelURL: url}, Env: p.Env, Enabled: true, Cron: "0 */6 * * *", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := apply.Parse("old.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Publish(t.Context(), b.Catalog, doc, ids.New, apply.Options{Actor: "earlier-release"}); err != nil {
		t.Fatal(err)
	}
}

// pullTaskOf is dir's task repo-o-r of project panel, its trigger, and
// who published into panel, as its publish audit records them.
func pullTaskOf(t *testing.T, dir string) (task.Revision, trigger.Revision, []string) {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	d, err := b.Store.ProjectDefinitions(t.Context(), "panel", 10)
	if err != nil || len(d.Tasks) != 1 || len(d.Triggers) != 1 {
		t.Fatalf("project panel: %+v (%v); want one task and its trigger", d, err)
	}
	raw, err := sql.Open("sqlite", LayoutOf(dir).DB)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.QueryContext(t.Context(), `SELECT actor FROM publish_audit WHERE project = 'panel' ORDER BY at_ms`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var actors []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			t.Fatal(err)
		}
		actors = append(actors, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return d.Tasks[0], d.Triggers[0], actors
}

// A subscription stored before the credential helper was scoped (its
// pull task's script gives git the token for every URL) has its pull
// task published again by the next start, before any pull: its script
// is the one written now, scoped to its own scheme, host and port, its
// env and trigger kept (the trigger follows the new revision), the
// publish audited and logged without the token; the start after it
// publishes nothing.
func TestAStartScopesTheCredentialHelperOfASubscriptionStoredTheOldWay(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	const token = "ghp_OLDWAY5"
	url := "https://bot:" + token + "@git.example.com/o/r.git"
	storedUnscoped(t, dir, url)
	before, _, _ := pullTaskOf(t, dir)

	logs := startLogged(t, dir)
	tk, tr, actors := pullTaskOf(t, dir)
	want, _ := crontab.PullOf(url, "")
	if tk.Revision != before.Revision+1 || tk.Spec.Command.Script != want.Script || strings.Contains(tk.Spec.Command.Script, "'credential.helper=") {
		t.Fatalf("after the start: revision %d (was %d), script\n%s\nwant one new revision with the script written now:\n%s", tk.Revision, before.Revision, tk.Spec.Command.Script, want.Script)
	}
	env := map[string]string{}
	for _, v := range tk.Spec.Command.Env {
		env[v.Name] = v.Value
	}
	if env[crontab.CredentialUserVariable] != "bot" || env[crontab.CredentialPasswordVariable] != token || tk.Spec.Labels[crontab.LabelURL] != url || !tk.Spec.Enabled {
		t.Errorf("after the start: env %v, labels %v, enabled %v; want them kept", env, tk.Spec.Labels, tk.Spec.Enabled)
	}
	if tr.TaskRevision != tk.Revision || !tr.Spec.Enabled || tr.Spec.Cron.Expression != "0 */6 * * *" {
		t.Errorf("the trigger pins task revision %d (the task is at %d), enabled %v, cron %q; want it following, as it was", tr.TaskRevision, tk.Revision, tr.Spec.Enabled, tr.Spec.Cron.Expression)
	}
	audited := slices.Contains(actors, subscription.RescopeActor)
	if !audited || !strings.Contains(logs, "code="+CodeSubscriptionsRescoped) || !strings.Contains(logs, "panel/repo-o-r") || strings.Contains(logs, token) {
		t.Errorf("audited by %s: %v; want the publish audited and logged, without the token:\n%s", subscription.RescopeActor, audited, logs)
	}

	if again := startLogged(t, dir); strings.Contains(again, CodeSubscriptionsRescoped) || strings.Contains(again, CodeSubscriptionsNotRescoped) {
		t.Errorf("the second start logged:\n%s\nwant nothing published", again)
	}
	if tk2, _, _ := pullTaskOf(t, dir); tk2.Revision != tk.Revision {
		t.Errorf("the second start published revision %d (was %d)", tk2.Revision, tk.Revision)
	}
}
