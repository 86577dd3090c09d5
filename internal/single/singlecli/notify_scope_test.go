package singlecli

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// `ql notifications list` shows what the rule that sent each notification
// covers, as the project's definitions have that rule now: SCOPE in the
// table ("project NAME" for the whole project, else the triggers and tasks
// it names) and ruleScope in -o json, the same on the database and over
// the API; a rule the file no longer has shows "-" and no ruleScope, the
// other fields as before. Not parallel: it sets $QL_TOKEN.
func TestNotificationsListShowsTheScopeOfEachRule(t *testing.T) {
	r := newReceiver(t, func(string, int) int { return http.StatusOK })
	defs := func(scoped string) string {
		return fmt.Sprintf(`project: alerts
notifications:
  channels:
    all: {type: webhook, url: %q, signingSecret: hook_hmac}
    some: {type: webhook, url: %q, signingSecret: hook_hmac}
  rules:
    - {on: failed, channel: all}
    - {on: failed, channel: some, %s}
tasks:
  - name: broken
    script: exit 3
triggers:
  - name: once
    task: broken
    cron: "0 0 1 1 *"
    timezone: UTC
`, r.srv.URL+"/all", r.srv.URL+"/some", scoped)
	}
	dir, db := notifyDataDir(t, defs("triggers: [once], tasks: [broken]"))
	base := serveAPI(t, dir, "standalone", "--cadence", "250ms")
	runFailing(t, dir)
	outboxState(t, db, "delivered", 2, 30*time.Second)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", newToken(t, dir, "reader", "read"))
	type page struct {
		Notifications []struct {
			Channel, Project, Trigger string
			RuleScope                 *struct {
				Project         string
				Tasks, Triggers []string
			}
		}
	}
	check := func(how string, list func(args ...string) outcome, some string, someScope string) {
		t.Helper()
		table := list("notifications", "list")
		header, rows, _ := strings.Cut(table.out, "\n")
		if table.code != 0 || !strings.Contains(header, " SCOPE ") {
			t.Fatalf("the table %s: %+v; want a SCOPE column", how, table)
		}
		scopes := map[string]string{}
		for _, row := range strings.Split(strings.TrimSpace(rows), "\n") {
			// ID STATE EVENT TRIGGER SCOPE CHANNEL ...: the columns are
			// two spaces apart at least.
			if cells := regexp.MustCompile(`\s{2,}`).Split(row, -1); len(cells) > 5 && cells[3] == "alerts/once" {
				scopes[strings.TrimSuffix(cells[5], " (webhook)")] = cells[4]
			}
		}
		if want := map[string]string{"all": "project alerts", "some": some}; !maps.Equal(scopes, want) {
			t.Errorf("the table %s: SCOPE by channel %v; want %v:\n%s", how, scopes, want, table.out)
		}
		out := list("notifications", "list", "-o", "json")
		var p page
		if err := json.Unmarshal([]byte(out.out), &p); err != nil || len(p.Notifications) != 2 {
			t.Fatalf("-o json %s: %q (%v)", how, out.out, err)
		}
		for _, n := range p.Notifications {
			got := "absent"
			if s := n.RuleScope; s != nil {
				got = fmt.Sprintf("%s %v %v", s.Project, s.Triggers, s.Tasks)
			}
			want := map[string]string{"all": "alerts [] []", "some": someScope}[n.Channel]
			if got != want || n.Project != "alerts" || n.Trigger != "once" {
				t.Errorf("-o json %s: %s's notification has ruleScope %s (project %q, trigger %q); want %s, alerts, once", how, n.Channel, got, n.Project, n.Trigger, want)
			}
		}
	}
	onTheDB := func(args ...string) outcome { return onDB(t, dir, args...) }
	overTheAPI := func(args ...string) outcome { return overAPI(t, base, args...) }
	check("on the database", onTheDB, "triggers once; tasks broken", "alerts [once] [broken]")
	check("over the API", overTheAPI, "triggers once; tasks broken", "alerts [once] [broken]")

	// Another scope is another rule: the notification's rule is gone.
	applyDefs(t, dir, defs("triggers: [once]"))
	check("on the database once the rule changed", onTheDB, "-", "absent")
	check("over the API once the rule changed", overTheAPI, "-", "absent")
}
