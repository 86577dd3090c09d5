package server

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The Notifications page links the trigger each notification is about to
// that trigger's page while its project has a trigger of that name; one
// whose trigger no longer exists names it as text, linking nowhere.
func TestTheNotificationsPageLinksEachTriggerThatStillExists(t *testing.T) {
	t.Parallel()
	s := startToldSite(t, 1)
	st, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/triggers?project="+s.projectID, s.tokens[apitoken.Read], nil)
	var list view.TriggerList
	if err := json.Unmarshal(body, &list); st != http.StatusOK || err != nil || len(list.Triggers) != 1 {
		t.Fatalf("told's triggers: %d %s", st, body)
	}
	c := consoleClient(t)
	s.signIn(t, c, s.tokens[apitoken.Read])
	link := `<a class="notification-trigger" href="/triggers/` + list.Triggers[0].TriggerID + `">told/yearly</a>`
	if _, page := httpcall.Form(t, c, http.MethodGet, s.base+"/notifications?project=told", nil); strings.Count(page, link) != 2 {
		t.Fatalf("want both notifications to link their trigger with %s:\n%s", link, page)
	}

	db, err := sql.Open("sqlite", LayoutOf(s.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE notification_outbox SET payload_json = json_set(payload_json, '$.trigger', 'gone') WHERE state = 'dead'`); err != nil {
		t.Fatal(err)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, s.base+"/notifications?project=told", nil)
	if strings.Count(page, link) != 1 || !strings.Contains(page, `<td data-label="Trigger">told/gone</td>`) {
		t.Errorf("a notification of a trigger that no longer exists: want told/gone as text and the other still linked:\n%s", page)
	}
}
