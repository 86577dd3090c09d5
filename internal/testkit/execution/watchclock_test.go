package execution

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// heardWithin bounds how long a worker whose every slot is busy may take
// to hear, through its watch, a change an admin or another process made
// to its session. It is what the watch guarantees against the two ways a
// worker would hear the change without it: the next renewal or heartbeat,
// up to 10 s later (held unanswered in these tests), and the end of the
// watch that was waiting at the change, which a change that wakes nothing
// leaves to its 20 s wait bound — at least 20 s − freshWatch after the
// change's start, since the change follows a fresh watch (awaitFresh). A
// loaded machine's slowness between the change and the worker's log line
// stays far inside it.
const heardWithin = 10 * time.Second

// freshWatch is how long before a change the watch waiting at it began,
// at most (awaitFresh).
const freshWatch = 3 * time.Second

// watchClock counts the watches (pulls of max 0) a proxy forwards and
// remembers when it forwarded the last one.
type watchClock struct {
	n      atomic.Int32
	lastMs atomic.Int64
}

// isWatch reads r's body, puts it back for the forward, and reports
// whether r is a watch. A body it cannot read is no watch.
func isWatch(r *http.Request) bool {
	if r.URL.Path != workerproto.PathPull {
		return false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var pull workerproto.PullRequest
	return json.Unmarshal(body, &pull) == nil && pull.Max == 0
}

// forwarded records a watch about to be forwarded.
func (w *watchClock) forwarded() {
	w.lastMs.Store(time.Now().UnixMilli())
	w.n.Add(1)
}

// awaitFresh returns once the watch waiting now began less than
// freshWatch ago, waiting for the next one when the last is older: a
// worker watches again as soon as its watch ends, at most MaxPullWait on.
func (w *watchClock) awaitFresh(t testing.TB) {
	t.Helper()
	eventually(t, time.Minute, "a watch that began less than "+freshWatch.String()+" ago", func() bool {
		return w.n.Load() > 0 && time.Since(time.UnixMilli(w.lastMs.Load())) < freshWatch
	})
}

// loggedAt is when p logged its first line carrying code, by its own
// clock: the instant it learnt what the line says, before whatever it did
// next (killing its command, ending its session, exiting).
func (p *proc) loggedAt(t testing.TB, code string) time.Time {
	t.Helper()
	f, err := os.Open(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for lines.Scan() {
		var rec struct {
			Time time.Time `json:"time"`
			Code string    `json:"code"`
		}
		if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Code == code {
			return rec.Time
		}
	}
	t.Fatalf("%s logged no %s line:\n%s", p.name, code, tail(p.logPath, 20))
	return time.Time{}
}
