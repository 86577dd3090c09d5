package workeringress

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// fixture is the ingress on a real HTTP server over a real runtime store.
type fixture struct {
	env   *clustertest.Env
	rt    *pgstore.Runtime
	admin *pgstore.Admin
	h     *Handler
	url   string
	ready atomic.Bool
	logs  *syncBuffer
}

// listenRunsQueued is a ListenFunc over the fixture's runtime, as a
// replica's listener is for its pulls and watches.
func (f *fixture) listenRunsQueued(ctx context.Context, wake func(Notice)) error {
	return f.rt.Listen(ctx, pgstore.Notices{
		RunsQueued: func(changed bool) { wake(Notice{SessionChanged: changed}) },
		StopAsked:  func(session string) { wake(Notice{StopAsked: session}) },
		Subscribed: func() { wake(Notice{Relisten: true}) },
	})
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	env := clustertest.New(t)
	f := &fixture{env: env, rt: env.Runtime(t, "ingress-test", 30*time.Second), logs: &syncBuffer{}}
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	f.admin = admin
	f.ready.Store(true)
	cfg.Acquire = func() (Store, func(), bool) {
		if !f.ready.Load() {
			return nil, nil, false
		}
		return f.rt, func() {}, true
	}
	if cfg.Settings == (pgstore.WorkerSettings{}) {
		cfg.Settings = pgstore.WorkerSettings{RunLease: 30 * time.Second, LogCap: workerproto.DefaultLogCap}
	}
	cfg.Log = slog.New(slog.NewJSONHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.h = New(cfg)
	srv := httptest.NewServer(f.h)
	t.Cleanup(srv.Close)
	t.Cleanup(f.h.Stop) // runs first: waiting pulls end before the server closes
	f.url = srv.URL
	return f
}

// worker creates a worker and returns its credential.
func (f *fixture) worker(t *testing.T, name string) string {
	t.Helper()
	cred, err := f.admin.WorkerCreate(t.Context(), name, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// post sends body (JSON-encoded unless it is []byte) with the credential
// ("" sends no Authorization header).
func (f *fixture) post(t *testing.T, cred, path string, body any) (int, []byte, http.Header) {
	t.Helper()
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	return httpcall.Bearer(t, http.MethodPost, f.url+path, cred, raw)
}

// call posts and decodes a 200 reply into out, failing on any other.
func (f *fixture) call(t *testing.T, cred, path string, body, out any) {
	t.Helper()
	status, raw, _ := f.post(t, cred, path, body)
	if status != http.StatusOK {
		t.Fatalf("%s: %d %s", path, status, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %v in %s", path, err, raw)
	}
}

func (f *fixture) register(t *testing.T, cred string) workerproto.RegisterReply {
	t.Helper()
	var reply workerproto.RegisterReply
	f.call(t, cred, workerproto.PathRegister, workerproto.RegisterRequest{Capacity: 2, Version: "test"}, &reply)
	return reply
}

// pullRequest is a fresh offer for session.
func pullRequest(t *testing.T, session string, waitMs int64) workerproto.PullRequest {
	t.Helper()
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		t.Fatal(err)
	}
	return workerproto.PullRequest{SessionID: session, OfferID: uuid.NewString(), Token: base64.RawURLEncoding.EncodeToString(token), Max: 1, WaitMs: waitMs}
}

// admit publishes n triggers of a fresh project, makes them due and runs
// one round through a scheduler on rt whose admitted hook is onAdmitted.
func (f *fixture) admit(t *testing.T, rt *pgstore.Runtime, project string, n int, onAdmitted func()) {
	t.Helper()
	f.admitDefinitions(t, rt, project, clustertest.Triggers(project, n, clustertest.QuietCron()), n, onAdmitted)
}

// admitDefinitions publishes doc, the definitions of project with n
// triggers, makes them due and admits them as admit does.
func (f *fixture) admitDefinitions(t *testing.T, rt *pgstore.Runtime, project, doc string, n int, onAdmitted func()) {
	t.Helper()
	f.env.Apply(t, doc)
	f.env.Exec(t, `UPDATE qinglong.trigger_schedules s SET next_fire_at_ms = `+pgstore.ClockMsSQL+` - 1000, state_version = state_version + 1
		FROM qinglong.projects p WHERE p.id = s.project_id AND p.name = $1`, project)
	coord, err := scheduler.New(scheduler.Config{Owner: "admitter"}, rt, slog.New(slog.DiscardHandler), availability.New())
	if err != nil {
		t.Fatal(err)
	}
	if onAdmitted != nil {
		coord.OnAdmitted(func(context.Context, int) { onAdmitted() })
	}
	sum, err := coord.Round(t.Context())
	if err != nil || len(sum.Admitted) != n {
		t.Fatalf("round admitted %v (%v, errors %v), want %d", sum.Admitted, err, sum.Errors, n)
	}
}

// errorOf decodes a workerproto.Error body.
func errorOf(t *testing.T, raw []byte) workerproto.Error {
	t.Helper()
	var e workerproto.Error
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("reply %s is not a workerproto.Error: %v", raw, err)
	}
	return e
}

// syncBuffer is a log sink safe for the handler's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// count is how many records carry code.
func (b *syncBuffer) count(code string) int {
	return strings.Count(b.String(), fmt.Sprintf(`"code":%q`, code))
}

// loggedAt is the time of the first JSON record carrying code.
func (b *syncBuffer) loggedAt(t *testing.T, code string) time.Time {
	t.Helper()
	for line := range strings.Lines(b.String()) {
		var rec struct {
			Time time.Time `json:"time"`
			Code string    `json:"code"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Code == code {
			return rec.Time
		}
	}
	t.Fatalf("no %s record in:\n%s", code, b)
	return time.Time{}
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// now is the database clock in milliseconds, the time leases count in.
func (f *fixture) now(t *testing.T) int64 {
	t.Helper()
	ms, err := f.rt.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return ms
}
