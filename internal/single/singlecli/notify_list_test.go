package singlecli

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// `ql notifications list` shows a page at a time and says when more follow
// and how to list them: on standard error after a table ("more: --after
// ID"), and in its -o json document, which is the page as `runs list` and
// `triggers list` print theirs (the items and "next"); --after lists the
// rest, and --project (a name) and --state keep only theirs.
func TestNotificationsListPagesAsTheOtherListsDoAndFiltersByProjectAndState(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, func(string, int) int { return http.StatusOK })
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "first", "second"))
	applyDefs(t, dir, quietFile)
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--data-dir", dir, "--cadence", "250ms", "--stop-timeout", testStopTimeout},
			&syncBuffer{}, &errOut)
	}()
	for range 3 {
		runFailing(t, dir)
	}
	outboxState(t, db, "delivered", 6, 30*time.Second)
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}

	list := func(args ...string) (string, string) {
		t.Helper()
		code, out, stderr := ql(t, append([]string{"notifications", "list", "--data-dir", dir}, args...)...)
		if code != 0 {
			t.Fatalf("notifications list %v: %d %q", args, code, stderr)
		}
		return out, stderr
	}
	type page struct {
		Notifications []struct{ ID, State, Project string }
		Next          *string
	}
	jsonPage := func(args ...string) page {
		t.Helper()
		out, more := list(append(args, "-o", "json")...)
		var p page
		if err := json.Unmarshal([]byte(out), &p); err != nil || p.Notifications == nil || more != "" {
			t.Fatalf("notifications list %v -o json: %s (%v), stderr %q; want {\"notifications\": [...]} and nothing on stderr", args, out, err, more)
		}
		return p
	}
	all := jsonPage()
	if len(all.Notifications) != 6 || all.Next != nil {
		t.Fatalf("every notification as JSON: %+v; want the 6 and no next", all)
	}
	out, more := list("--limit", "4")
	if rows := strings.Count(out, "\n") - 1; rows != 4 || more != "more: --after "+all.Notifications[3].ID+"\n" {
		t.Fatalf("a table of 4: %d rows, stderr %q; want 4 and how to list the next page\n%s", rows, more, out)
	}
	out, more = list("--limit", "4", "--after", all.Notifications[3].ID)
	if !strings.Contains(out, all.Notifications[4].ID) || !strings.Contains(out, all.Notifications[5].ID) || strings.Count(out, "\n") != 3 || more != "" {
		t.Fatalf("the page after %s: %q, stderr %q; want the last 2 rows and nothing more", all.Notifications[3].ID, out, more)
	}
	if p := jsonPage("--limit", "4"); len(p.Notifications) != 4 || p.Next == nil || *p.Next != all.Notifications[3].ID {
		t.Fatalf("a JSON page of 4: %+v; want 4 and next %s", p, all.Notifications[3].ID)
	}
	if p := jsonPage("--project", "alerts", "--state", "delivered"); len(p.Notifications) != 6 {
		t.Fatalf("alerts' delivered notifications: %+v; want the 6", p)
	}
	for _, args := range [][]string{{"--project", "api"}, {"--state", "dead"}} {
		if out, _ = list(append(args, "-o", "json")...); strings.TrimSpace(out) != "{\n  \"notifications\": []\n}" {
			t.Fatalf("notifications list %v: %s; want an empty page", args, out)
		}
	}
	// A page of each list has the same shape: its items under the list's
	// name, and the cursor of the next page.
	for _, name := range []string{"runs", "triggers", "notifications"} {
		code, out, stderr := ql(t, name, "list", "--limit", "1", "-o", "json", "--data-dir", dir)
		var doc map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc) != 2 || doc[name] == nil || doc["next"] == nil || stderr != "" {
			t.Fatalf("%s list --limit 1 -o json: exit %d, %s (%v), stderr %q; want {%q: [...], \"next\": ...}", name, code, out, err, stderr, name)
		}
	}
	if code, _, stderr := ql(t, "notifications", "list", "--project", "nosuch", "--data-dir", dir); code == 0 || !strings.Contains(stderr, "nosuch") {
		t.Fatalf("a project that does not exist: %d %q; want it refused by name", code, stderr)
	}
	if code, _, stderr := ql(t, "notifications", "list", "--state", "failed", "--data-dir", dir); code != 2 || !strings.Contains(stderr, "pending, delivered, dead") {
		t.Fatalf("a state that is none: %d %q; want a usage error naming the states", code, stderr)
	}
}
