package replica

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On a cluster replica, whose runtime role runs now and pauses but may
// not publish, the triggers list offers an admin session Run now, Pause
// and Resume for the triggers it selects, and no Enable or Disable, as
// the single trigger's forms: Run now on both makes a Run of each, the
// pause is audited with the session's actor and note, and a batch enable
// sent all the same is refused in the single form's words, enabling
// nothing.
func TestAReplicasTriggersListRunsAndPausesSelectedTriggersButCannotEnableThem(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("batch", 2, clustertest.QuietCron()))
	admin := env.URL(pgstore.RoleAdmin)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "create", "chief", "--scope", "admin")
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	r := startReplica(t, bin, env, "replica-batch")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	_, page := get("/triggers")
	for id, want := range map[string]bool{"batch-run": true, "batch-pause": true, "batch-resume": true, "batch-enable": false, "batch-disable": false} {
		if strings.Contains(page, `id="`+id+`"`) != want {
			t.Errorf("the replica's triggers list offers %s: %v, want %v", id, !want, want)
		}
	}
	form := url.Values{}
	m := regexp.MustCompile(`(?s)<form method="post" action="/triggers/batch" id="triggers-batch" class="batch">(.*?)</form>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the replica's triggers list has no batch form:\n%s", page)
	}
	for _, in := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(m[1], -1) {
		form.Set(in[1], html.UnescapeString(in[2]))
	}
	for _, box := range regexp.MustCompile(`name="id" value="([0-9a-f-]{36})" form="triggers-batch"`).FindAllStringSubmatch(page, -1) {
		form.Add("id", box[1])
	}
	if len(form["id"]) != 2 {
		t.Fatalf("the list has %d boxes, want one per trigger (2):\n%s", len(form["id"]), page)
	}
	post := func(action string) (int, string) {
		t.Helper()
		form.Set("do", action)
		resp, err := c.PostForm(base+"/triggers/batch", form)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, html.UnescapeString(string(b))
	}
	if code, page := post("run"); code != http.StatusOK || strings.Count(page, `class="batch-done"`) != 2 || strings.Count(page, `class="batch-runlink `) != 2 {
		t.Fatalf("batch run now on a replica: %d, want both done with their Runs\n%s", code, page)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE idempotency_key LIKE 'ql3:manual:%'`); n != 2 {
		t.Errorf("%d manual Runs after the batch, want 2", n)
	}
	form.Set("note", "failover drill")
	if code, page := post("pause"); code != http.StatusOK || strings.Count(page, `class="batch-done"`) != 2 {
		t.Fatalf("batch pause on a replica: %d\n%s", code, page)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedule_audit WHERE action = 'pause' AND actor LIKE 'console:token:chief@%' AND note = 'failover drill'`); n != 2 {
		t.Errorf("%d pause audit records naming the console session and the note, want 2", n)
	}
	if code, page := post("enable"); code != http.StatusConflict || !strings.Contains(page, "this server cannot enable or disable triggers; use <code>ql triggers enable|disable</code> (on the cluster with the admin role)") {
		t.Errorf("a batch enable on a replica: %d, want 409 in the single form's words\n%s", code, page)
	}
}
