package agent

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// A worker asked to stop in the instant after it registered still reports
// the attempts its crashed predecessor left, instead of leaving each to
// its lease (up to a whole run lease later): a supervisor's restart loop
// or a pod evicted as it starts stops it exactly there.
func TestAWorkerStoppedJustAfterRegisteringStillReportsWhatItsCrashedPredecessorLeft(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 60_000)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	g := in.enqueue(t, shell(`echo $$ > `+filepath.Join(dir, "pid")+`; exec sleep 3600`))
	first := startHelper(t, in, data, time.Second)
	pid := readPid(t, filepath.Join(dir, "pid"))
	waitFor(t, "the running record", func() bool { return readJournal(t, data, g.AttemptID).State == journal.StateRunning })
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	if processGone(pid) {
		t.Fatal("the command died with the worker; the crash did not leave it running")
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	logs := &syncBuffer{}
	cfg := Config{Server: in.srv.URL, Credential: in.credential, DataDir: data, Concurrency: 1, StopTimeout: 5 * time.Second,
		PullWait: 200 * time.Millisecond, BaseEnv: []string{"PATH=/usr/bin:/bin"}, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		wrapTransport: func(next http.RoundTripper) http.RoundTripper { return &stopOnRegistered{next: next, stop: stop} }}
	if _, err := Run(ctx, cfg); err != nil {
		t.Fatalf("worker stopped after registering: %v\n%s", err, logs)
	}
	if !processGone(pid) {
		t.Fatal("the restarted worker did not end the command its predecessor left")
	}
	if a := in.attempt(g.AttemptID); a.complete == nil || a.complete.Outcome != workerproto.OutcomeStopped || a.complete.ErrorCode != ErrorCodeStopped {
		t.Fatalf("the replica saw completion %+v; want the restarted worker's report of the attempt as stopped by its worker (lost), though it was told to stop as it registered\n%s",
			a.complete, logs)
	}
	if !strings.Contains(logs.String(), `"code":"attempt_abandoned_reported"`) {
		t.Fatalf("the worker did not say it reported the abandoned attempt:\n%s", logs)
	}
}

// stopOnRegistered cancels the worker's run context as the reply of its
// registration reaches it: before anything the registration lets it do.
type stopOnRegistered struct {
	next http.RoundTripper
	stop context.CancelFunc
}

func (s *stopOnRegistered) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := s.next.RoundTrip(r)
	if err == nil && r.URL.Path == workerproto.PathRegister && res.StatusCode == http.StatusOK {
		s.stop()
	}
	return res, err
}

// CloseIdleConnections closes the wrapped transport's, as the worker's
// client asks when it ends.
func (s *stopOnRegistered) CloseIdleConnections() {
	if c, ok := s.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
