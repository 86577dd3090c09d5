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

// onCode runs do, synchronously, when a record carrying code is handled:
// before the logging call returns, so before the replica goes on.
type onCode struct {
	slog.Handler
	code string
	do   func()
}

func (h onCode) Handle(ctx context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "code" && a.Value.String() == h.code {
			h.do()
			return false
		}
		return true
	})
	return h.Handler.Handle(ctx, r)
}

func (h onCode) WithAttrs(as []slog.Attr) slog.Handler {
	return onCode{Handler: h.Handler.WithAttrs(as), code: h.code, do: h.do}
}

func (h onCode) WithGroup(name string) slog.Handler {
	return onCode{Handler: h.Handler.WithGroup(name), code: h.code, do: h.do}
}

// Once a replica says it is ready, its heartbeat row is live, so `ql
// triggers run` does not say that no replica runs to whoever waited for
// that line or for /readyz. The heartbeat loop's rounds are held until the
// ready line has been logged, and the row is read as that line is logged:
// only a beat the activation wrote before opening admission is there.
func TestAReadyReplicasHeartbeatIsAlreadyLive(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-beat",
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", StopTimeout: 2 * time.Second}
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	s.beforeBeatRound = func(ctx context.Context) {
		select {
		case <-ready:
		case <-ctx.Done():
		}
	}
	type reading struct {
		live int
		err  error
	}
	read := make(chan reading, 1)
	log := slog.New(onCode{Handler: slog.NewJSONHandler(io.Discard, nil), code: CodeReady, do: func() {
		var r reading
		r.err = env.Super.QueryRow(context.Background(), `SELECT count(*) FROM qinglong.replica_heartbeats
			WHERE replica_id = 'replica-beat' AND stopped_at_ms IS NULL AND expires_at_ms > `+pgstore.ClockMsSQL).Scan(&r.live)
		read <- r
		close(ready)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveReplica(ctx, s, log) }()
	var got reading
	select {
	case got = <-read:
	case err := <-served:
		t.Fatalf("serve returned %v before it was ready", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the replica was not ready within 30s")
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve returned %v after the stop", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return within 10s of the stop")
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.live != 1 {
		t.Fatalf("%d live heartbeat rows of the replica as it said it was ready, want 1", got.live)
	}
}
