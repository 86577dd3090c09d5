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

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On a cluster replica the Runs list's cancel form cancels the Runs an
// operate session ticks and no other, through the runtime role, and
// answers in the page's language how many were cancelled and how many
// had already ended (one cancelled behind the page's back meanwhile).
func TestAReplicasRunsListCancelsTheTickedRuns(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "console-runs-cancel", 30*time.Second)
	runs := admitRuns(t, env, rt, 3)
	r := startReplica(t, bin, env, "replica-runs-cancel")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {env.Token(t, "canceller", apitoken.Operate)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	_, page := get("/runs?state=queued&lang=zh")
	m := regexp.MustCompile(`(?s)<form method="post" action="/runs/cancel" id="runs-batch" class="batch">(.*?)</form>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the replica's Runs list has no cancel form:\n%s", page)
	}
	form := url.Values{}
	for _, in := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(m[1], -1) {
		form.Set(in[1], html.UnescapeString(in[2]))
	}
	boxes := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})" form="runs-batch"`).FindAllStringSubmatch(page, -1)
	if len(boxes) != 3 || form.Get("state") != "queued" {
		t.Fatalf("the list has %d boxes and carries state %q; want one per queued Run (3), the filter carried:\n%s", len(boxes), form.Get("state"), page)
	}
	form.Add("id", runs[0])
	form.Add("id", runs[1])
	form.Set("do", "cancel")
	if _, _, err := rt.CancelRun(t.Context(), runs[1], "elsewhere"); err != nil {
		t.Fatal(err)
	}
	resp, err := c.PostForm(base+"/runs/cancel?lang=zh", form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if said := html.UnescapeString(string(b)); resp.StatusCode != http.StatusOK || !strings.Contains(said, "取消所勾选的 2 个运行：已取消 1 个；1 个此前已经结束。") {
		t.Fatalf("the cancel answered %d; want the list saying one cancelled, one had ended:\n%s", resp.StatusCode, said)
	}
	for i, want := range []string{"cancelled", "cancelled", "queued"} {
		if env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE id = $1 AND state = $2`, runs[i], want) != 1 {
			t.Errorf("Run %d is not %s", i, want)
		}
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.run_events WHERE run_id = $1 AND payload::text LIKE '%console:token:canceller%'`, runs[0]); n == 0 {
		t.Error("the cancel of the ticked Run is not audited with the console session")
	}
}
