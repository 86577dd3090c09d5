package replica

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// A replica serving /metrics on its API listener answers a scrape while
// it cannot reach its database, with the token Prometheus scraped with
// before: up, not ready (qinglong_ready 0, the state database_unavailable),
// its process's and scheduler's metrics there and the gauges read from the
// database absent, their failed reads counted; so Prometheus reads it as
// up and not ready, not as down.
func TestAReplicasMetricsOnItsAPIListenerAnswerWhileItsDatabaseIsDown(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	token := env.Token(t, "prometheus", apitoken.Read)
	r := startReplica(t, bin, env, "replica-scraped")
	r.await(t, CodeReady, 30*time.Second)
	scrape := "http://" + r.addr + "/metrics"
	if m := metricstest.ScrapeWithToken(t, scrape, token); m.Value(t, "qinglong_ready") != 1 || m.Value(t, "qinglong_runs", "state", "queued") != 0 {
		t.Fatal("the scrape while the database answers: not ready, or without the gauges read from it")
	}

	// The runtime role may open no connection, and its sessions are ended:
	// the replica loses its database, as when the server is full, and
	// cannot open another connection until the limit is lifted.
	role := runtimeRole(t, env)
	env.Exec(t, `ALTER ROLE "`+role+`" CONNECTION LIMIT 0`)
	loginBack := func() { env.Exec(t, `ALTER ROLE "`+role+`" CONNECTION LIMIT -1`) }
	t.Cleanup(loginBack)
	terminateBackends(t, env, "replica-scraped")
	eventually(t, 10*time.Second, "the replica to report the lost database", func() bool {
		code, reason := r.readyz(t)
		return code == http.StatusServiceUnavailable && reason == ReasonDatabaseUnavailable
	})
	// The gauges read from the database serve scrapes for the metrics'
	// cache period (5 s) after their read: each scrape until one reads
	// again must answer too. Scraped once a second, as Prometheus paces its
	// scrapes, not as fast as the token's rate allows.
	var m metricstest.Families
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Second) {
		m = metricstest.ScrapeWithToken(t, scrape, token)
		if m["qinglong_monitor_read_failures_total"] != nil && m.Value(t, "qinglong_monitor_read_failures_total") > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no scrape read the database in 20 s after it went down")
		}
	}
	// The gauges are read in more than one read, each cached for the
	// period: one failed read does not say the others' cache has run out,
	// so the scrape that is checked comes a whole period after it.
	time.Sleep(6 * time.Second)
	m = metricstest.ScrapeWithToken(t, scrape, token)
	for name, want := range map[string]float64{"qinglong_ready": 0} {
		if got := m.Value(t, name); got != want {
			t.Errorf("%s = %g while the database is down, want %g", name, got, want)
		}
	}
	if got := m.Value(t, "qinglong_readiness_state", "state", "database_unavailable"); got != 1 {
		t.Errorf("qinglong_readiness_state{state=database_unavailable} = %g while the database is down, want 1", got)
	}
	for _, present := range []string{"qinglong_info", "process_start_time_seconds", "qinglong_scheduler_decisions_total"} {
		if m[present] == nil {
			t.Errorf("%s is missing from the scrape while the database is down; it needs no database", present)
		}
	}
	for _, absent := range []string{"qinglong_runs", "qinglong_worker_sessions", "qinglong_database_size_bytes"} {
		if m[absent] != nil {
			t.Errorf("%s is in the scrape while the database is down; a gauge read from it must be absent, not stale", absent)
		}
	}
	loginBack()
	eventually(t, 15*time.Second, "the replica ready again", func() bool {
		code, _ := r.readyz(t)
		return code == http.StatusOK
	})
}

// runtimeRole is the role name of env's runtime URL.
func runtimeRole(t *testing.T, env *clustertest.Env) string {
	t.Helper()
	u, err := url.Parse(env.URL(pgstore.RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	return u.User.Username()
}
