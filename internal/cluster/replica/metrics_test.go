package replica

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// TestMetricsScrapedFromAReplicaMatchTheDatabase: after a known workload
// — six triggers made due five seconds late, admitted by one replica, and
// a worker registered with three slots that pulls nothing — the replica's
// /metrics, read with Prometheus's text parser, agree with PostgreSQL:
// decisions admitted and Runs, the lag and the Runs' times, Runs by state,
// worker sessions and free slots, no unplaceable Run (the worker takes any
// task without a placement), the backlog and readiness.
func TestMetricsScrapedFromAReplicaMatchTheDatabase(t *testing.T) {
	t.Parallel()
	const triggers = 6
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("metrics", triggers, clustertest.QuietCron()))
	env.MakeDue(t, 5000)
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cred, err := admin.WorkerCreate(t.Context(), "idle", nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	p := serveInProcess(t, metricsReplicaFlags(env, "replica-metrics"))
	eventually(t, 30*time.Second, "every due Run admitted", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == triggers })
	p.awaitReady(t)
	var reg workerproto.RegisterReply
	status, raw := post(t, http.DefaultClient, "http://"+p.workerAddr+workerproto.PathRegister, cred, workerproto.RegisterRequest{Capacity: 3, Version: "test"})
	if status != http.StatusOK || json.Unmarshal(raw, &reg) != nil {
		t.Fatalf("register: %d %s", status, raw)
	}
	addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
	queuedAgeFrom := env.Int(t, `SELECT `+pgstore.ClockMsSQL+` - min(queued_at_ms) FROM qinglong.runs WHERE state = 'queued'`)
	m := metricstest.Scrape(t, "http://"+addr+"/metrics")
	queuedAgeTo := env.Int(t, `SELECT `+pgstore.ClockMsSQL+` - min(queued_at_ms) FROM qinglong.runs WHERE state = 'queued'`)

	if got := m.Value(t, "qinglong_scheduler_decisions_total", "outcome", "admitted"); got != triggers {
		t.Errorf("decisions admitted: %g, want %d (the Runs in the database)", got, triggers)
	}
	lagCount, lagSum := m.Histogram(t, "qinglong_scheduler_admission_lag_seconds")
	want := float64(env.Int(t, `SELECT sum(created_at_ms - due_at_ms) FROM qinglong.runs`)) / 1000
	if lagCount != triggers || lagSum < 5*triggers || math.Abs(lagSum-want) > 1e-6 {
		t.Errorf("admission lag: %d samples summing %gs; want %d, each at least the 5 s the rows were late, summing their Runs' creation − due time (%gs)",
			lagCount, lagSum, triggers, want)
	}
	for _, st := range schedule.UnfinishedStates {
		want := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = $1`, string(st))
		if got := m.Value(t, "qinglong_runs", "state", string(st)); got != float64(want) {
			t.Errorf("qinglong_runs{state=%q} = %g, the database holds %d", st, got, want)
		}
	}
	if queued := m.Value(t, "qinglong_runs", "state", "queued"); queued != triggers {
		t.Errorf("queued Runs: %g, want all %d (the worker pulled nothing)", queued, triggers)
	}
	// The oldest queued Run's age is database time since it was queued,
	// read between the two readings of the database clock around the
	// scrape.
	if got := m.Value(t, "qinglong_runs_oldest_queued_age_seconds"); got < float64(queuedAgeFrom)/1000 || got > float64(queuedAgeTo)/1000 {
		t.Errorf("oldest queued age %gs; the database's clock says between %gs and %gs", got, float64(queuedAgeFrom)/1000, float64(queuedAgeTo)/1000)
	}
	sessions := env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions WHERE state = 'active'`)
	free := env.Int(t, `SELECT sum(capacity - running) FROM qinglong.worker_sessions WHERE state = 'active'`)
	if got := m.Value(t, "qinglong_worker_sessions"); sessions != 1 || got != float64(sessions) {
		t.Errorf("worker sessions: %g; the database holds %d live (want 1)", got, sessions)
	}
	if got := m.Value(t, "qinglong_worker_free_slots"); free != 3 || got != float64(free) {
		t.Errorf("worker free slots: %g; the database holds %d (want 3)", got, free)
	}
	for name, want := range map[string]float64{
		"qinglong_schedule_due_rows": 0, "qinglong_schedule_oldest_due_age_seconds": 0, "qinglong_ready": 1,
		"qinglong_monitor_read_failures_total": 0, "qinglong_runs_unplaceable": 0,
	} {
		if got := m.Value(t, name); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	if got := m.Value(t, "qinglong_info", "profile", "cluster"); got != 1 {
		t.Errorf("qinglong_info{profile=cluster} = %g", got)
	}
}

// TestFailedAuthenticationsAreCountedInTheMetricsBySurfaceAndReason: a
// replica's /metrics count the API's, the console's and the worker
// ingress's failed and throttled authentications, each under its reason.
func TestFailedAuthenticationsAreCountedInTheMetricsBySurfaceAndReason(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	p := serveInProcess(t, metricsReplicaFlags(env, "replica-auth"))
	api, _ := p.logs.withCode(CodeListening)[0]["addr"].(string)
	eventually(t, 30*time.Second, "the replica to be ready", func() bool {
		resp, err := http.Get("http://" + api + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	// The API and the ingress: one malformed credential, nine unknown
	// ones (the tenth failure), then one more, throttled.
	unknownToken := "qlt_" + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	send := func(url, malformed, unknown string) {
		t.Helper()
		for i, cred := range append([]string{malformed}, slices.Repeat([]string{unknown}, 10)...) {
			status, raw := post(t, http.DefaultClient, url, cred, map[string]any{})
			if want := map[bool]int{true: http.StatusTooManyRequests, false: http.StatusUnauthorized}[i == 10]; status != want {
				t.Fatalf("%s, request %d: %d %s, want %d", url, i+1, status, raw, want)
			}
		}
	}
	send("http://"+api+"/api/v1/triggers/x/pause", "not-a-token", unknownToken)
	send("http://"+p.workerAddr+workerproto.PathHeartbeat, "not-a-credential", workerproto.CredentialPrefix+"unknown")
	// The console: one failed sign-in.
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get("http://" + api + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("sign-in page without a CSRF field:\n%s", page)
	}
	resp, err = c.PostForm("http://"+api+"/signin", url.Values{"csrf": {string(m[1])}, "user": {"nobody"}, "password": {"wrong password"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusSeeOther {
		t.Fatal("a sign-in of an unknown user succeeded")
	}

	addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
	scraped := metricstest.Scrape(t, "http://"+addr+"/metrics")
	want := map[[2]string]float64{
		{"api", "malformed"}: 1, {"api", "unknown"}: 9, {"api", "throttled"}: 1,
		{"console", "unknown"}:  1,
		{"worker", "malformed"}: 1, {"worker", "unknown"}: 9, {"worker", "throttled"}: 1,
	}
	for _, surface := range metrics.AuthSurfaces {
		for _, reason := range metrics.AuthReasons {
			if got := scraped.Value(t, "qinglong_auth_failures_total", "surface", surface, "reason", reason); got != want[[2]string{surface, reason}] {
				t.Errorf("qinglong_auth_failures_total{surface=%q,reason=%q} = %g, want %g", surface, reason, got, want[[2]string{surface, reason}])
			}
		}
	}
}
