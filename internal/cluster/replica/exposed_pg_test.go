package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A replica whose API serves plain HTTP (--insecure-http) and whose
// metrics listen where other machines reach them says so once each at
// start, as a standalone server does.
func TestAReplicasListenersOtherMachinesReachWithoutProtectionAreWarnedAboutAtStart(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	p := serveInProcess(t, cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-exposed",
		RolePrefix: env.Prefix, HTTPAddr: "0.0.0.0:0", InsecureHTTP: true, WorkerAddr: "127.0.0.1:0", MetricsAddr: "0.0.0.0:0",
		Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second})
	p.awaitReady(t)
	for _, code := range []string{httpapi.CodePlainHTTPExposed, metrics.CodeExposed} {
		if got := len(p.logs.withCode(code)); got != 1 {
			t.Errorf("%d lines %s, want 1", got, code)
		}
	}
}
