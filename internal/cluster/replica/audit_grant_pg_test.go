package replica

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A cluster upgraded without re-applying the roles: the runtime role may
// append to the audit trail but not read it. A replica still gets ready
// and pauses with its audit record; its API, its console (in English and
// Chinese) and `ql triggers show` with the runtime role's URL show the
// rest of the trigger and say the trail is unreadable and what to run.
func TestWithoutTheAuditReadGrantEveryTriggerViewIsWholeAndSaysTheTrailIsUnreadable(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("grant", 1, clustertest.QuietCron()))
	env.Exec(t, "REVOKE SELECT ON qinglong.trigger_schedule_audit FROM "+pgstore.RoleNames(env.Prefix).Runtime)
	secret := env.Token(t, "ops", apitoken.Operate)
	r := startReplica(t, bin, env, "replica-grant")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr

	var triggers view.TriggerList
	if err := json.Unmarshal([]byte(getBody(t, base+"/api/v1/triggers", secret)), &triggers); err != nil || len(triggers.Triggers) != 1 {
		t.Fatalf("trigger list: %v %+v", err, triggers)
	}
	id := triggers.Triggers[0].TriggerID
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, base+"/api/v1/triggers/"+id+"/pause", secret, []byte(`{"note":"db upgrade"}`)); st != 200 {
		t.Fatalf("pause without SELECT on the audit trail: %d %s", st, body)
	}
	var d view.TriggerDetail
	if err := json.Unmarshal([]byte(getBody(t, base+"/api/v1/triggers/"+id, secret)), &d); err != nil ||
		!d.AuditUnreadable || len(d.Audit) != 0 || !d.Paused || d.PauseNote != "db upgrade" {
		t.Fatalf("API trigger view: %+v (%v); want it whole, paused with its note, and the trail unreadable", d, err)
	}

	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	for lang, want := range map[string]string{"en": "Run <code>ql db roles</code> as a superuser to grant it.", "zh": "请以超级用户身份运行 <code>ql db roles</code> 授予该权限。"} {
		resp, page := get("/triggers/" + id + "?lang=" + lang)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="audit-unreadable"`) || !strings.Contains(page, want) ||
			!strings.Contains(page, "db upgrade") || strings.Contains(page, `<table id="audit"`) {
			t.Fatalf("console trigger page (%s): %d; want it whole with the pause note and %q instead of the trail:\n%s", lang, resp.StatusCode, want, page)
		}
	}

	runtime := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime), "QL_ROLE_PREFIX=" + env.Prefix}
	code, out := runQL(t, bin, runtime, "triggers", "show", "grant/t00000")
	if code != 0 || !strings.Contains(out, "paused     since") || !strings.Contains(out, "audit trail not shown: ") || !strings.Contains(out, "run `ql db roles` (as a superuser)") {
		t.Fatalf("triggers show with the runtime role: exit %d %q; want the trigger and a word that the trail is unreadable", code, out)
	}
	code, out = runQL(t, bin, runtime, "triggers", "show", "grant/t00000", "-o", "json")
	if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || !d.AuditUnreadable || !d.Paused {
		t.Fatalf("triggers show -o json with the runtime role: exit %d %q (%v)", code, out, err)
	}
}
