package dbcli

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A subscription's pull task stored on a cluster before the credential
// helper was scoped (its script gives git the token for every URL) is
// published again by `ql db migrate`, the cluster's upgrade step: its
// script is the one written now, scoped to its own scheme, host and port,
// its trigger following the new revision, and the output names it
// without the token; a migrate after it publishes nothing.
func TestMigrateScopesTheCredentialHelperOfASubscriptionStoredTheOldWay(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	env := map[string]string{EnvMigrationURL: db.URL}
	if out, err := run(t, env, "migrate"); err != nil {
		t.Fatalf("ql db migrate: %v\n%s", err, out)
	}
	const token = "ghp_OLDWAY6"
	url := "https://bot:" + token + "@git.example.com/o/r.git"
	p, _ := crontab.PullOf(url, "")
	unscoped := strings.Replace(p.Script, "'credential.https://git.example.com.helper=", "'credential.helper=", 1)
	if unscoped == p.Script {
		t.Fatalf("the pull script holds no scoped helper to write unscoped:\n%s", p.Script)
	}
	admin, err := pgstore.OpenAdmin(t.Context(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	text, err := apply.NewPullFile(t.Context(), admin, apply.PullEntry{Project: "panel", Name: p.Name, Title: p.Title, Script: unscoped,
		Labels: map[string]string{crontab.LabelURL: url}, Env: p.Env, Enabled: true, Cron: "0 */6 * * *", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := apply.Parse("old.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	if _, err := apply.Publish(t.Context(), svc, doc, ids.New, apply.Options{Actor: "earlier-release"}); err != nil {
		t.Fatal(err)
	}

	out, err := run(t, env, "migrate")
	if err != nil || !strings.Contains(out, "published the pull tasks of panel/repo-o-r again") || strings.Contains(out, token) {
		t.Fatalf("ql db migrate over the old pull task: %v\n%s\nwant it naming the subscription published again, without the token", err, out)
	}
	d, err := admin.ProjectDefinitions(t.Context(), "panel", 10)
	if err != nil || len(d.Tasks) != 1 || len(d.Triggers) != 1 {
		t.Fatalf("project panel: %+v (%v)", d, err)
	}
	if tk, tr := d.Tasks[0], d.Triggers[0]; tk.Spec.Command.Script != p.Script || tk.Revision != 2 || tr.TaskRevision != tk.Revision {
		t.Errorf("after the migrate: task revision %d, trigger pinning %d, script\n%s\nwant revision 2 followed by the trigger, with the script written now", tk.Revision, tr.TaskRevision, tk.Spec.Command.Script)
	}
	if again, err := run(t, env, "migrate"); err != nil || strings.Contains(again, "subscriptions:") {
		t.Errorf("the migrate after it: %v\n%s\nwant nothing published", err, again)
	}
}
