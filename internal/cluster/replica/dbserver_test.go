package replica

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A reconnection that lands on another server says so at warn and in the
// info metric: here a multi-host URL whose first server stops, so the
// replica's next activation reaches the second, another cluster (another
// system identifier), as an operator's URL listing a primary and a
// standby reaches the standby after a failover.
func TestAReplicaThatReconnectsToAnotherDatabaseServerSaysSoAtWarnAndInItsInfoMetric(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	// The env's own server is listed second: the first, which the test
	// stops, holds only a copy of the installation, so nothing is left to
	// drop on it.
	second, env := ownServer(t)
	first, err := pgtest.StartServer(t.Context(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the first PostgreSQL server", 30*time.Second, first.Stop)
	installLike(t, first, env)
	hosts := fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", first.Port(), second.Port())
	url := strings.Replace(env.URL(pgstore.RoleRuntime), fmt.Sprintf("127.0.0.1:%d", second.Port()), hosts, 1)

	r := startReplicaOn(t, bin, env, url, "replica-moved", "--metrics-addr", "127.0.0.1:0")
	r.await(t, CodeReady, 30*time.Second)
	ready := r.await(t, CodeDatabaseReady, time.Second)
	firstAddr := fmt.Sprintf("127.0.0.1:%d", first.Port())
	if ready["address"] != firstAddr || ready["server_address"] != firstAddr || ready["system_identifier"] == nil || ready["timeline"] != float64(1) {
		t.Fatalf("the first database_ready line %v does not name the first server (%s), its system identifier and timeline", ready, firstAddr)
	}
	scrape := "http://" + r.await(t, CodeMetricsListening, time.Second)["addr"].(string) + "/metrics"
	if got := metricstest.Scrape(t, scrape).LabelValues("qinglong_database_server_info", "address"); len(got) != 1 || got[0] != firstAddr {
		t.Fatalf("qinglong_database_server_info addresses %v, want only %s", got, firstAddr)
	}

	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	warn := r.await(t, CodeDatabaseServerChanged, 60*time.Second)
	secondAddr := fmt.Sprintf("127.0.0.1:%d", second.Port())
	msg, _ := warn["msg"].(string)
	if warn["level"] != "WARN" || !strings.Contains(msg, "another PostgreSQL cluster") || !strings.Contains(msg, secondAddr) || !strings.Contains(msg, firstAddr) {
		t.Fatalf("the warning %v does not say at warn that the replica moved from %s to another cluster at %s", warn, firstAddr, secondAddr)
	}
	m := metricstest.Scrape(t, scrape)
	if got := m.LabelValues("qinglong_database_server_info", "address"); len(got) != 1 || got[0] != secondAddr {
		t.Fatalf("qinglong_database_server_info addresses %v after the move, want only %s", got, secondAddr)
	}
	if ids := m.LabelValues("qinglong_database_server_info", "system_identifier"); len(ids) != 1 || ids[0] == ready["system_identifier"] {
		t.Fatalf("system identifiers %v after the move, want the second server's alone (the first's was %v)", ids, ready["system_identifier"])
	}
}

// installLike makes on srv a database named as env's, migrated, with env's
// roles and passwords: the same installation on another cluster.
func installLike(t *testing.T, srv *pgtest.Srv, env *clustertest.Env) {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, srv.SuperuserURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{env.DB.Name}.Sanitize())
	_ = conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := srv.SuperuserURL(env.DB.Name)
	if _, err := pgstore.Migrate(ctx, url, nil); err != nil {
		t.Fatal(err)
	}
	cfg := pgstore.RolesConfig{Prefix: env.Prefix, Passwords: map[pgstore.RoleKind]string{}}
	for _, k := range pgstore.RoleKinds {
		cfg.Passwords[k] = "test-password-" + string(k)
	}
	if err := pgstore.EnsureRoles(ctx, url, cfg); err != nil {
		t.Fatal(err)
	}
}
