package faults

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/recovery"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// replica is an in-process cluster control replica built from the real
// parts, in the order the cluster composition root uses: runtime pool →
// readiness → startup recovery → scheduler. Each has its own pool, so
// two replicas never share a backend.
type replica struct {
	Owner    string
	Store    *pgstore.Runtime
	Coord    *scheduler.Coordinator
	Latch    *availability.Latch
	Log      *logRecorder
	Recovery recovery.Report

	closeOnce sync.Once
}

// replicaStepTimeout bounds opening, readiness, recovery and stopping.
const replicaStepTimeout = time.Minute

// openReplica connects to runtimeURL as owner and runs readiness and
// startup recovery; the scheduler is not started (see start).
func openReplica(t testing.TB, g gateDB, runtimeURL, owner string, lease time.Duration) *replica {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), replicaStepTimeout)
	defer cancel()
	store, err := pgstore.OpenRuntime(ctx, runtimeURL, pgstore.RuntimeConfig{Owner: owner, Lease: lease, RolePrefix: g.prefix})
	if err != nil {
		t.Fatalf("replica %s: open runtime: %v", owner, err)
	}
	r := &replica{Owner: owner, Store: store, Latch: availability.New(), Log: newLogRecorder()}
	t.Cleanup(r.close)
	if err := store.Ready(ctx); err != nil {
		t.Fatalf("replica %s: readiness: %v", owner, err)
	}
	log := slog.New(r.Log)
	// No worker ever runs here: one sweep page settles everything.
	sweep := func(ctx context.Context) (bool, error) {
		_, err := store.SweepLeases(ctx, recovery.MaxPageSize)
		return false, err
	}
	r.Recovery, err = recovery.Gate{Source: store, Sweep: sweep, PageSize: recovery.MaxPageSize, Log: log}.Run(ctx)
	if err != nil {
		t.Fatalf("replica %s: startup recovery: %v", owner, err)
	}
	r.Coord, err = scheduler.New(scheduler.Config{Owner: owner, Lease: lease}, store, log, r.Latch)
	if err != nil {
		t.Fatalf("replica %s: scheduler: %v", owner, err)
	}
	// The password must never reach the diagnostic sink.
	t.Cleanup(func() {
		if line, ok := r.Log.containing(g.password); ok {
			t.Errorf("replica %s logged the database password: %s", owner, line)
		}
	})
	return r
}

// round runs one round by hand (the loop is not started).
func (r *replica) round(t testing.TB) schedule.Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), replicaStepTimeout)
	defer cancel()
	sum, err := r.Coord.Round(ctx)
	if err != nil {
		t.Fatalf("replica %s: round: %v", r.Owner, err)
	}
	return sum
}

func (r *replica) start(t testing.TB) {
	t.Helper()
	if err := r.Coord.Start(context.Background()); err != nil {
		t.Fatalf("replica %s: start: %v", r.Owner, err)
	}
	t.Cleanup(func() { r.stop(t) })
}

// stop drains the scheduler (idempotent); a drain timeout fails the test.
func (r *replica) stop(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), replicaStepTimeout)
	defer cancel()
	if err := r.Coord.Stop(ctx); err != nil {
		t.Errorf("replica %s: stop: %v", r.Owner, err)
	}
}

// close releases the pool: the replica is gone, any claim it holds stays.
func (r *replica) close() { r.closeOnce.Do(r.Store.Close) }

// logRecorder is a slog.Handler that keeps every record as flat key=value
// attributes, so gates can assert on the diagnostic codes a replica
// emitted.
type logRecorder struct {
	mu      *sync.Mutex
	records *[]map[string]string
	attrs   []slog.Attr
}

func newLogRecorder() *logRecorder {
	return &logRecorder{mu: &sync.Mutex{}, records: &[]map[string]string{}}
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	m := map[string]string{"msg": rec.Message, "level": rec.Level.String()}
	for _, a := range h.attrs {
		m[a.Key] = a.Value.String()
	}
	rec.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.records = append(*h.records, m)
	return nil
}

func (h *logRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logRecorder{mu: h.mu, records: h.records, attrs: append(slices.Clip(h.attrs), attrs...)}
}

// WithGroup flattens: the gates match on attribute keys only.
func (h *logRecorder) WithGroup(string) slog.Handler { return h }

// withCode returns the records carrying the diagnostic code.
func (h *logRecorder) withCode(code string) []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]string
	for _, m := range *h.records {
		if m["code"] == code {
			out = append(out, m)
		}
	}
	return out
}

// containing finds a record with s in any key or value.
func (h *logRecorder) containing(s string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range *h.records {
		for k, v := range m {
			if strings.Contains(k, s) || strings.Contains(v, s) {
				return k + "=" + v, true
			}
		}
	}
	return "", false
}
