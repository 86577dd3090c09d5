package replica

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// TestAnIdleReplicaKeepsTheConnectionsOfABurstOpen: with nothing due, a
// replica's pool still holds a connection for each commit group of a full
// page, one for the claim beside them and one for the notice to other
// replicas (six at page 256 and commit parallelism 4), so a burst opens no
// connection (TCP, TLS, password exchange) inside its rounds.
func TestAnIdleReplicaKeepsTheConnectionsOfABurstOpen(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-warm",
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", PageSize: 256, StopTimeout: 2 * time.Second}
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	if want := keptConns(s.Coordinator); want != 6 {
		t.Fatalf("page 256 at commit parallelism %d keeps %d connections, want 6", s.Coordinator.Parallel, want)
	}
	logs := &logLines{added: make(chan struct{}, 1)}
	pr, pw := io.Pipe()
	go logs.consume(pr)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveReplica(ctx, s, slog.New(slog.NewJSONHandler(pw, nil))) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
		_ = pw.Close()
	}()
	eventually(t, 30*time.Second, "the first activation", func() bool { return len(logs.withCode(CodeReady)) == 1 })
	eventually(t, 10*time.Second, "six connections open while idle", func() bool { return len(backends(t, env, "replica-warm")) >= 6 })
	if n := admittedTotal(logs); n != 0 {
		t.Fatalf("the replica admitted %d Runs with no trigger defined", n)
	}
}
