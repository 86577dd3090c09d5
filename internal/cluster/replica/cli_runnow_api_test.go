package replica

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// Over --api-url, `ql triggers run` and `ql runs rerun` of a Run no worker
// can take say why it waits, as on the database: the server's answer
// carries the reason.
func TestRunNowAndRerunOverTheAPISayWhyNoWorkerTakesTheRun(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("waits", 1, clustertest.QuietCron()))
	r := startReplica(t, bin, env, "runnow-api")
	r.await(t, CodeReady, 30*time.Second)
	api := []string{"QL_TOKEN=" + env.Token(t, "operator", apitoken.Operate), "QL_API_URL=http://" + r.addr}
	note := "note: the Run waits: no worker is connected"
	code, out := runQL(t, bin, api, "triggers", "run", "t00000", "--project", "waits")
	queued := regexp.MustCompile(`run (\S+) queued`).FindStringSubmatch(out)
	if code != 0 || queued == nil || !strings.Contains(out, note) {
		t.Fatalf("triggers run over the API: exit %d %q; want the Run queued and %q", code, out, note)
	}
	if code, out := runQL(t, bin, api, "runs", "cancel", queued[1]); code != 0 {
		t.Fatalf("runs cancel over the API: exit %d %q", code, out)
	}
	if code, out := runQL(t, bin, api, "runs", "rerun", queued[1]); code != 0 || !strings.Contains(out, note) {
		t.Fatalf("runs rerun over the API: exit %d %q; want %q", code, out, note)
	}
	// The answer itself says it, for any client of the API.
	var id string
	if err := env.Super.QueryRow(t.Context(), `SELECT id::text FROM qinglong.triggers`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	st, body, _ := httpcall.Bearer(t, http.MethodPost, "http://"+r.addr+"/api/v1/triggers/"+id+"/run", strings.TrimPrefix(api[0], "QL_TOKEN="), []byte(`{"requestId":"answer-says-why"}`))
	var answer struct {
		Waits *view.Waiting `json:"waits"`
	}
	if st != http.StatusOK || json.Unmarshal(body, &answer) != nil || answer.Waits == nil || answer.Waits.Reason != run.WaitNoWorker || !strings.Contains(answer.Waits.Message, "no worker is connected") {
		t.Fatalf("run now's answer: %d %s; want waits with reason %s and its message", st, body, run.WaitNoWorker)
	}
}
