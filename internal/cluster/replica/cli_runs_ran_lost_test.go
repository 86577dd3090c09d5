package replica

import (
	"crypto/rand"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A Run lost because its worker stopped renewing ran at least until the
// worker was last heard from, maybe longer: `ql runs list` gives its RAN
// as "≥ …", `runs show` says the figure counts until then, and -o json
// marks ranMs a lower bound, on the database and over the API alike.
func TestALostRunsRunningTimeIsSaidAsALowerBound(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "cli-runs-lost", 30*time.Second)
	lost := admitRuns(t, env, rt, 1)[0]
	w, reg := env.ConnectWorker(t, rt, "w-vanishing", nil, 1)
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	short := pgstore.WorkerSettings{RunLease: time.Second}
	reply, err := rt.PullGrants(t.Context(), w, workerproto.PullRequest{SessionID: reg.SessionID, OfferID: ids.New(), Token: token, Max: 1}, short)
	if err != nil || len(reply.Grants) != 1 {
		t.Fatalf("pull: %+v, %v; want the Run granted", reply, err)
	}
	lease := workerproto.Lease{AttemptID: reply.Grants[0].AttemptID, Token: token, LeaseVersion: reply.Grants[0].LeaseVersion}
	if _, err := rt.StartAttempt(t.Context(), w, workerproto.StartRequest{Lease: lease}, short); err != nil {
		t.Fatalf("start: %v", err)
	}
	// The worker is never heard from again: the sweep ends the attempt
	// lost once its one-second lease has run out.
	eventually(t, 30*time.Second, "the sweep to find the attempt lost", func() bool {
		res, err := rt.SweepLeases(t.Context(), 10)
		return err == nil && res.Lost == 1
	})
	if state := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'lost' AND id::text = $1`, lost); state != 1 {
		t.Fatalf("the Run %s is not lost", lost)
	}
	check := func(where string, vars []string) {
		t.Helper()
		if code, out := runQL(t, bin, vars, "runs", "list"); code != 0 || !regexp.MustCompile(`(?m)^`+lost+` +lost +≥ \d+m?s `).MatchString(out) {
			t.Fatalf("runs list %s: exit %d\n%s\nwant RAN ≥ … for the lost %s", where, code, out, lost)
		}
		if code, out := runQL(t, bin, vars, "runs", "show", lost); code != 0 || !regexp.MustCompile(`\nran +≥ \S+ \(until its worker was last heard from`).MatchString(out) {
			t.Fatalf("runs show %s: exit %d\n%s\nwant a ran line saying ≥ … until the worker was last heard from", where, code, out)
		}
		if code, out, _ := runQLSplit(t, bin, vars, "runs", "show", lost, "-o", "json"); code != 0 || !strings.Contains(out, `"ranMsIsLowerBound": true`) {
			t.Fatalf("runs show -o json %s: exit %d %s; want ranMsIsLowerBound true", where, code, out)
		}
	}
	check("on the database", []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)})
	r := startReplica(t, bin, env, "cli-runs-lost-api")
	r.await(t, CodeReady, 30*time.Second)
	check("over the API", []string{"QL_TOKEN=" + env.Token(t, "reader", apitoken.Read), "QL_API_URL=http://" + r.addr})
}
