package storetest

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// scopesFile is a file of project split that holds only the project's
// notifications, one rule scoped to the tasks and triggers named.
func scopesFile(t *testing.T, tasks, triggers string) *apply.Document {
	t.Helper()
	return parse(t, "notify.yaml", []byte("project: split\nnotifications:\n  channels:\n    ops: {type: webhook, url: \"https://hooks.example.com/q\"}\n"+
		"  rules:\n    - {on: succeeded, tasks: ["+tasks+"], triggers: ["+triggers+"], channel: ops}\n"))
}

// A notification rule's tasks and triggers may name the file's own and,
// since the notifications speak for a project split over several files,
// those another file of the project applied before; a name neither has (a
// typo) is refused by the dry run and the apply alike, naming the field,
// and nothing is applied.
func testRuleScopesNameTheProjects(t *testing.T, f Fixture) {
	tasksFile := parse(t, "tasks.yaml", []byte("project: split\ntasks:\n  - {name: checkin, script: echo ok}\n"+
		"triggers:\n  - {name: daily, task: checkin, cron: '0 8 * * *', timezone: Asia/Shanghai}\n"))
	// Before the tasks' file, the project has neither name yet.
	_, err := apply.Plan(t.Context(), f.Service, f.Service.Store, scopesFile(t, "checkin", "daily"), ids.New)
	if qlerror.ReasonOf(err) != apply.RefusalRuleScopeUnknown {
		t.Fatalf("a dry run naming a task and a trigger no file applied yet: %v; want it refused", err)
	}
	applyFile(t, f, tasksFile)
	for _, typo := range []struct {
		doc         *apply.Document
		field, name string
	}{
		{scopesFile(t, "chekin", "daily"), "notifications.rules[0].tasks", "chekin"},
		{scopesFile(t, "checkin", "dialy"), "notifications.rules[0].triggers", "dialy"},
	} {
		if _, err := apply.Plan(t.Context(), f.Service, f.Service.Store, typo.doc, ids.New); qlerror.ReasonOf(err) != apply.RefusalRuleScopeUnknown ||
			!strings.Contains(err.Error(), typo.field+`: "`+typo.name+`" is not a`) {
			t.Fatalf("the dry run of a rule naming %s: %v; want it refused naming %s", typo.name, err, typo.field)
		}
		if _, err := apply.Apply(t.Context(), f.Service, typo.doc, ids.New); qlerror.ReasonOf(err) != apply.RefusalRuleScopeUnknown {
			t.Fatalf("the apply of a rule naming %s: %v; want it refused", typo.name, err)
		}
		if p, err := f.Catalog.ProjectByName(t.Context(), "split"); err != nil || p.Notifications != "" {
			t.Fatalf("the refused apply left the project's notifications %q (%v); want none", p.Notifications, err)
		}
	}
	// The dry run and the apply name the rule the file adds, with its
	// event and scope.
	want := "project split: would update notifications, notifications.rules +{on: succeeded, tasks: [checkin], triggers: [daily], channel: ops}"
	planned, err := apply.Plan(t.Context(), f.Service, f.Service.Store, scopesFile(t, "checkin", "daily"), ids.New)
	if err != nil || planned[0].Planned() != want {
		t.Fatalf("the dry run of the rule naming the other file's task and trigger: %v (%v); want %q", planned, err, want)
	}
	res := applyFile(t, f, scopesFile(t, "checkin", "daily"))
	if res[0].Change != catalog.Updated || res[0].Planned() != want {
		t.Fatalf("the rule naming the other file's task and trigger: %v; want the project updated as the dry run said", res)
	}
}
