package workeringress

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// A real worker's command starts with its project's env, which the
// replica's grant carries beside the execution revision: the project's
// value, the project's secret resolved from the worker's own secrets file
// (masked in the log), and the task's own variable winning over the
// project's of the same name.
func TestAWorkersRunSeesItsProjectsEnv(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	dir := t.TempDir()
	secrets := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(secrets, []byte(`{"shop/api-token": "v3ry-s3cret-value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := "project: shop\nenv:\n  REGION: cn-east\n  TIER: gold\n  TOKEN: {secret: shop/api-token}\n" +
		"tasks:\n  - name: job\n    env: {TIER: own}\n    script: |\n" +
		`      echo "region=$REGION tier=$TIER token=$TOKEN"; [ "$TOKEN" = v3ry-s3cret-value ] && echo resolved` + "\n" +
		"triggers:\n  - {name: t00000, task: job, cron: \"" + clustertest.QuietCron() + "\", timezone: UTC}\n"
	f.admitDefinitions(t, f.rt, "shop", doc, 1, nil)
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	dataDir := t.TempDir() // before the goroutine: removed only after the stop below
	go func() {
		_, err := agent.Run(ctx, agent.Config{Server: f.url, Credential: f.worker(t, "shop"), DataDir: dataDir, Concurrency: 1,
			StopTimeout: 5 * time.Second, PullWait: time.Second, BaseEnv: []string{"PATH=/usr/bin:/bin"}, SecretsFile: secrets,
			Logger: slog.New(slog.NewJSONHandler(logs, nil))})
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v\n%s", err, logs.String())
		}
	})
	a := f.ended(t, "shop")
	if log := f.log(t, a.id); a.state != "succeeded" || log != "region=cn-east tier=own token=***\nresolved\n" {
		t.Fatalf("attempt %+v logged %q; want the project's REGION, the task's own TIER and the project's TOKEN resolved from the worker's file", a, log)
	}
}

// Over the protocol: a worker whose registration names no grant field it
// reads (a worker built before project env sends none) is never granted a
// Run of a project with an env, and still gets the Runs of a project
// without one; a worker whose registration reads projectEnv is granted
// the Run, with the env.
func TestAWorkerRegisteredWithoutReadingProjectEnvIsNeverGrantedARunOfAProjectWithEnv(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	doc := "project: shop\nenv:\n  REGION: cn-east\ntasks:\n  - name: job\n    script: echo $REGION\n" +
		"triggers:\n  - {name: t00000, task: job, cron: \"" + clustertest.QuietCron() + "\", timezone: UTC}\n"
	f.admitDefinitions(t, f.rt, "shop", doc, 1, nil)
	f.admit(t, f.rt, "plain", 1, nil)

	oldCred := f.worker(t, "old")
	var old workerproto.RegisterReply
	f.call(t, oldCred, workerproto.PathRegister, []byte(`{"capacity":2,"version":"before-project-env"}`), &old)
	for pull, want := range []int{1, 0} {
		req := pullRequest(t, old.SessionID, 0)
		req.Max = 2
		var reply workerproto.PullReply
		f.call(t, oldCred, workerproto.PathPull, req, &reply)
		if len(reply.Grants) != want || (want == 1 && reply.Grants[0].Project != "plain") {
			t.Fatalf("pull %d of the worker that reads no project env was granted %+v; want %d, plain's Run only", pull+1, reply.Grants, want)
		}
	}

	newCred := f.worker(t, "new")
	var fresh workerproto.RegisterReply
	f.call(t, newCred, workerproto.PathRegister, workerproto.RegisterRequest{Capacity: 2, Version: "test", Reads: workerproto.Reads()}, &fresh)
	req := pullRequest(t, fresh.SessionID, 0)
	var reply workerproto.PullReply
	f.call(t, newCred, workerproto.PathPull, req, &reply)
	if len(reply.Grants) != 1 || reply.Grants[0].Project != "shop" || !strings.Contains(reply.Grants[0].ProjectEnv, "cn-east") {
		t.Fatalf("the worker reading project env was granted %+v; want shop's Run with its env", reply.Grants)
	}
}

// A worker that an older replica registered without the grant fields it
// reads (a rolling upgrade replaced the replicas under it) is not granted
// a Run of a project with an env until a heartbeat names them; the
// upgraded replica then keeps them on its session and grants it the Run,
// with the env, without the worker registering again. A heartbeat naming
// none leaves the session's reads as they are.
func TestAWorkerAnOlderReplicaRegisteredIsGrantedProjectEnvRunsOnceAHeartbeatSaysItsReads(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	doc := "project: shop\nenv:\n  REGION: cn-east\ntasks:\n  - name: job\n    script: echo $REGION\n" +
		"triggers:\n  - {name: t00000, task: job, cron: \"" + clustertest.QuietCron() + "\", timezone: UTC}\n"
	f.admitDefinitions(t, f.rt, "shop", doc, 1, nil)

	cred := f.worker(t, "upgraded")
	var reg workerproto.RegisterReply
	f.call(t, cred, workerproto.PathRegister, []byte(`{"capacity":2,"version":"registered-through-an-older-replica"}`), &reg)
	pull := func() []workerproto.Grant {
		var reply workerproto.PullReply
		f.call(t, cred, workerproto.PathPull, pullRequest(t, reg.SessionID, 0), &reply)
		return reply.Grants
	}
	var hb workerproto.HeartbeatReply
	f.call(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: reg.SessionID}, &hb)
	if hb.ReadsKept {
		t.Fatalf("a heartbeat naming no reads was answered %+v; want them not kept", hb)
	}
	if grants := pull(); len(grants) != 0 {
		t.Fatalf("the session registered without reads was granted %+v; want nothing", grants)
	}
	f.call(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: reg.SessionID, Reads: workerproto.Reads()}, &hb)
	if !hb.ReadsKept || hb.State != workerproto.SessionActive {
		t.Fatalf("the heartbeat naming the worker's reads was answered %+v; want them kept, the session active", hb)
	}
	f.call(t, cred, workerproto.PathHeartbeat, workerproto.HeartbeatRequest{SessionID: reg.SessionID}, &hb)
	if grants := pull(); len(grants) != 1 || grants[0].Project != "shop" || !strings.Contains(grants[0].ProjectEnv, "cn-east") {
		t.Fatalf("once its heartbeat said its reads, the worker was granted %+v; want shop's Run with its env", grants)
	}
}
