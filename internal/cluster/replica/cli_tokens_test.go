package replica

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

func getWith(t *testing.T, url, token string) int {
	t.Helper()
	st, _, _ := httpcall.Bearer(t, http.MethodGet, url, token, nil)
	return st
}

func getBody(t *testing.T, url, token string) string {
	t.Helper()
	st, b, _ := httpcall.Bearer(t, http.MethodGet, url, token, nil)
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, st, b)
	}
	return string(b)
}

// Tokens are the admin role's to create, list and revoke (the runtime role
// is told which role to use); a replica, on the runtime role, authenticates
// them, records their use and refuses a revoked one, pauses a trigger with
// its audit record, serves /metrics to a token, and answers an apply with
// where to publish instead (publishing is the admin role's): 403, and
// `ql apply --api-url` exits 5 as with the runtime role's URL.
func TestTokensAreTheAdminRolesAndTheReplicaAuthenticatesThem(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("tok", 1, clustertest.QuietCron()))
	admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + runtime}, "tokens", "create", "ci", "--scope", "read"); code != 5 || !strings.Contains(out, "needs the admin role's URL") {
		t.Fatalf("create as runtime: exit %d %q", code, out)
	}
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "create", "ci", "--scope", "operate", "--expires", "90d")
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if code != 0 || !apitoken.LooksLikeToken(secret) {
		t.Fatalf("create as admin: exit %d %q", code, out)
	}
	r := startReplica(t, bin, env, "replica-tok")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	if st := getWith(t, base+"/api/v1/triggers", ""); st != 401 {
		t.Fatalf("no token: %d", st)
	}
	if st := getWith(t, base+"/api/v1/triggers", secret); st != 200 {
		t.Fatalf("a live token: %d", st)
	}
	code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "list", "-o", "json")
	var list struct {
		Tokens []struct {
			Name, Scope, State string
			ExpiresAtMs        *int64
			LastUsedAtMs       *int64
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Tokens) != 1 || list.Tokens[0].LastUsedAtMs == nil ||
		list.Tokens[0].ExpiresAtMs == nil || list.Tokens[0].Scope != "operate" || strings.Contains(out, secret) {
		t.Fatalf("tokens list: exit %d %q", code, out)
	}
	var triggers view.TriggerList
	if err := json.Unmarshal([]byte(getBody(t, base+"/api/v1/triggers", secret)), &triggers); err != nil || len(triggers.Triggers) != 1 {
		t.Fatalf("trigger list: %v %+v", err, triggers)
	}
	st, body, _ := httpcall.Bearer(t, http.MethodPost, base+"/api/v1/triggers/"+triggers.Triggers[0].TriggerID+"/pause", secret, []byte(`{"note":"db upgrade"}`))
	if st != 200 || !strings.Contains(string(body), `"paused":true`) {
		t.Fatalf("pause over the cluster API: %d %s", st, body)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedule_audit WHERE action = 'pause' AND actor LIKE 'api:ci@%' AND note = 'db upgrade'`); n != 1 {
		t.Fatalf("%d audit records of the API's pause, want 1", n)
	}
	adminToken := env.Token(t, "adm", apitoken.Admin)
	st, body, _ = httpcall.Bearer(t, http.MethodPost, base+"/api/v1/apply", adminToken, []byte(clustertest.Triggers("tok", 1, clustertest.QuietCron())))
	if st != 403 || !strings.Contains(string(body), `"code":"permission_denied"`) || !strings.Contains(string(body), "admin role's URL") {
		t.Fatalf("apply over the cluster API: %d %s; want 403 saying to apply with the admin role", st, body)
	}
	file := filepath.Join(t.TempDir(), "defs.yaml")
	if err := os.WriteFile(file, []byte(clustertest.Triggers("tok", 1, clustertest.QuietCron())), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := runQL(t, bin, []string{"QL_TOKEN=" + adminToken}, "apply", "-f", file, "--api-url", base); code != 5 || !strings.Contains(out, "admin role's URL") {
		t.Fatalf("ql apply --api-url to a replica: exit %d %q; want exit 5 (not allowed), as with the runtime role's URL", code, out)
	}
	if text := getBody(t, base+"/metrics", secret); !regexp.MustCompile(`qinglong_info\{commit="[^"]+",profile="cluster",version="[^"]+"\} 1`).MatchString(text) {
		t.Fatalf("/metrics on the replica's API listener: %q", text)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "revoke", "ci"); code != 0 {
		t.Fatalf("revoke: exit %d %q", code, out)
	}
	if st := getWith(t, base+"/api/v1/triggers", secret); st != 401 {
		t.Fatalf("a revoked token: %d", st)
	}
}
