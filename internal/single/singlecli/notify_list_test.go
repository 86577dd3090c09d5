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

// `ql notifications list` shows a page at a time and says on standard
// error, after a table and after its JSON list alike (whose shape stays a
// bare list), when more follow and the flag that lists them; --after lists
// the rest, and --project (a name) and --state keep only theirs.
func TestNotificationsListSaysWhenMoreFollowAndFiltersByProjectAndState(t *testing.T) {
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
	var all []struct{ ID, State, Project string }
	out, more := list("-o", "json")
	if err := json.Unmarshal([]byte(out), &all); err != nil || len(all) != 6 || more != "" {
		t.Fatalf("every notification as JSON: %s (%v), stderr %q; want a list of the 6, nothing more", out, err, more)
	}
	out, more = list("--limit", "4")
	if rows := strings.Count(out, "\n") - 1; rows != 4 || more != "more: --after "+all[3].ID+"\n" {
		t.Fatalf("a table of 4: %d rows, stderr %q; want 4 and how to list the next page\n%s", rows, more, out)
	}
	out, more = list("--limit", "4", "--after", all[3].ID)
	if !strings.Contains(out, all[4].ID) || !strings.Contains(out, all[5].ID) || strings.Count(out, "\n") != 3 || more != "" {
		t.Fatalf("the page after %s: %q, stderr %q; want the last 2 rows and nothing more", all[3].ID, out, more)
	}
	var page []struct{ ID string }
	out, more = list("--limit", "4", "-o", "json")
	if err := json.Unmarshal([]byte(out), &page); err != nil || len(page) != 4 || more != "more: --after "+all[3].ID+"\n" {
		t.Fatalf("a JSON page of 4: %s (%v), stderr %q; want a list of 4 and how to list the next page", out, err, more)
	}
	if out, _ = list("--project", "alerts", "--state", "delivered", "-o", "json"); json.Unmarshal([]byte(out), &page) != nil || len(page) != 6 {
		t.Fatalf("alerts' delivered notifications: %s; want the 6", out)
	}
	for _, args := range [][]string{{"--project", "api"}, {"--state", "dead"}} {
		if out, _ = list(append(args, "-o", "json")...); strings.TrimSpace(out) != "[]" {
			t.Fatalf("notifications list %v: %s; want an empty list", args, out)
		}
	}
	if code, _, stderr := ql(t, "notifications", "list", "--project", "nosuch", "--data-dir", dir); code == 0 || !strings.Contains(stderr, "nosuch") {
		t.Fatalf("a project that does not exist: %d %q; want it refused by name", code, stderr)
	}
	if code, _, stderr := ql(t, "notifications", "list", "--state", "failed", "--data-dir", dir); code != 2 || !strings.Contains(stderr, "pending, delivered, dead") {
		t.Fatalf("a state that is none: %d %q; want a usage error naming the states", code, stderr)
	}
}
