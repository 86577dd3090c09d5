package replica

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// On the cluster the admin role records the tokens it creates and
// revokes, and a ready replica, on the runtime role (whose exact grants
// readiness compared), records a project pause its API makes, in the
// trail `ql audit list` reads with either role's URL and the replica's
// GET /api/v1/audit serves.
func TestTheClusterRecordsWhoRevokedATokenAndWhoPausedAProjectOverAReplica(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("aud", 1, clustertest.QuietCron()))
	admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "create", "lead", "--scope", "admin")
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if code != 0 || !apitoken.LooksLikeToken(secret) {
		t.Fatalf("create as admin: exit %d %q", code, out)
	}
	for _, args := range [][]string{{"tokens", "create", "gone", "--scope", "read"}, {"tokens", "revoke", "gone"}} {
		if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, args...); code != 0 {
			t.Fatalf("%v: exit %d %q", args, code, out)
		}
	}
	r := startReplica(t, bin, env, "replica-audit")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, base+"/api/v1/projects/aud/pause", secret, []byte(`{"note":"db upgrade"}`)); st != http.StatusOK {
		t.Fatalf("pause over the replica: %d %s", st, body)
	}
	want := []string{"trigger.paused api:lead", "project.paused api:lead", "token.revoked ", "token.created ", "token.created "}
	lines := func(p audit.Page) []string {
		var out []string
		for _, rec := range p.Records {
			actor, _, _ := strings.Cut(rec.Actor, "@")
			if strings.HasPrefix(rec.Actor, "api:") {
				out = append(out, string(rec.Action)+" "+actor)
			} else {
				out = append(out, string(rec.Action)+" ")
			}
		}
		return out
	}
	for role, url := range map[string]string{"runtime": runtime, "admin": admin} {
		code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + url}, "audit", "list", "-o", "json")
		var page audit.Page
		if code != 0 || json.Unmarshal([]byte(out), &page) != nil {
			t.Fatalf("audit list with the %s role's URL: exit %d %q", role, code, out)
		}
		if got := lines(page); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("audit list with the %s role's URL: %q; want %q", role, got, want)
		}
		if page.Records[1].Note != "1 trigger(s): db upgrade" || page.Records[1].Project != "aud" {
			t.Fatalf("the project pause's record %+v; want its note and project", page.Records[1])
		}
	}
	var served audit.Page
	if err := json.Unmarshal([]byte(getBody(t, base+"/api/v1/audit?action=token.revoked", secret)), &served); err != nil || len(served.Records) != 1 || served.Records[0].ObjectName != "gone" {
		t.Fatalf("GET /api/v1/audit?action=token.revoked: %+v %v; want the revoke of gone", served, err)
	}
}
