package replica

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On the cluster, a console user made with `ql users create --project
// alpha` sees alpha's Runs and none of shop's on a replica, finds shop's
// Run missing (404, as an id no Run has) without the page naming shop,
// and cannot cancel it: the Run stays queued.
func TestABoundConsoleUserSeesOnlyItsProjects(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("shop", 1, clustertest.QuietCron()), clustertest.Triggers("alpha", 1, clustertest.QuietCron()))
	rt := env.Runtime(t, "test-admit", 30*time.Second)
	triggers, _, err := rt.TriggerList(t.Context(), schedule.TriggerListParams{})
	if err != nil || len(triggers) != 2 {
		t.Fatalf("triggers: %d %v", len(triggers), err)
	}
	runs := map[string]string{}
	for _, tg := range triggers {
		res, err := rt.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: tg.TriggerID, RequestID: ids.New(), Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		runs[tg.ProjectName] = res.RunID
	}
	const pw = "correct horse battery"
	if code, out := runQLIn(t, bin, pw+"\n", []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)},
		"users", "create", "alpha-ops", "--role", "operator", "--project", "alpha", "--password-stdin"); code != 0 || !strings.Contains(out, "projects alpha") {
		t.Fatalf("users create --project alpha: exit %d %q", code, out)
	}
	a := startReplica(t, bin, env, "replica-a")
	a.await(t, CodeReady, 30*time.Second)
	base := "http://" + a.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"user": {"alpha-ops"}, "password": {pw}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in as alpha-ops: %d", resp.StatusCode)
	}
	resp, page := get("/runs")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, runs["alpha"]) || strings.Contains(page, runs["shop"]) || strings.Contains(page, "shop") {
		t.Errorf("the Runs page for a user bound to alpha: %d; want alpha's Run and nothing of shop's:\n%s", resp.StatusCode, page)
	}
	resp, page = get("/runs/" + runs["shop"])
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "does not exist") || strings.Contains(page, "shop") || strings.Contains(page, "is bound to") {
		t.Errorf("shop's Run for a user bound to alpha: %d; want 404, the Run missing, not naming shop:\n%s", resp.StatusCode, page)
	}
	_, page = get("/")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the overview has no CSRF field:\n%s", page)
	}
	resp, err = c.PostForm(base+"/runs/"+runs["shop"]+"/cancel", url.Values{"csrf": {m[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("cancelling shop's Run as a user bound to alpha: %d; want 404, the Run missing", resp.StatusCode)
	}
	if d, err := rt.RunGet(t.Context(), runs["shop"]); err != nil || d.Run.State.Finished() {
		t.Errorf("shop's Run after a bound user's cancel: %s %v; want it queued still", d.Run.State, err)
	}
}
