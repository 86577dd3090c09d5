package workeringress

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// sends is what a proxy saw of a worker's attempt: its start, renewals,
// log chunks and completion, in the order they came. An attempt sends
// them one at a time, each once the answer to the one before came or was
// given up, so the arrival of a send here is the latest the worker can
// have heard the answer to the one before it, and its own arrival the
// earliest it can hear its own: bounds on the worker's clock that no
// delay of this machine's makes wrong.
type sends struct {
	mu   sync.Mutex
	seen []send
}

type send struct {
	path    string
	arrived time.Time
	// logBytes is the offset a chunk starts at, or the log size a
	// completion reports; -1 when its body never came whole (the worker
	// gave the send up while sending it).
	logBytes int64
}

// attemptSends are the paths of an attempt's own sends.
var attemptSends = map[string]bool{workerproto.PathStart: true, workerproto.PathRenew: true, workerproto.PathLog: true, workerproto.PathComplete: true}

// note records r when it is one of an attempt's sends, reading a chunk's
// offset or a completion's log size and leaving the body as it came.
func (s *sends) note(t *testing.T, r *http.Request) {
	if !attemptSends[r.URL.Path] {
		return
	}
	rec := send{path: r.URL.Path, arrived: time.Now()}
	if r.URL.Path == workerproto.PathLog || r.URL.Path == workerproto.PathComplete {
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var sent struct {
			Offset   int64 `json:"offset"`
			LogBytes int64 `json:"logBytes"`
		}
		switch {
		case err != nil:
			rec.logBytes = -1
		case json.Unmarshal(body, &sent) != nil:
			t.Errorf("the proxy could not read a %s request: %q", r.URL.Path, body)
		default:
			rec.logBytes = sent.Offset + sent.LogBytes
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, rec)
}

// longestUntaken is the longest the worker can have gone, since its
// attempt started, without hearing that a replica took a log chunk: from
// the earliest it can have heard of one taken (or of its start) to the
// latest it can have heard of the next. A worker drops output only after
// that long went by without one (outputStallAfter).
func (s *sends) longestUntaken() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	// next[i] is the log position the first chunk or completion after
	// the i-th says: past a chunk's offset once the worker heard a
	// replica took it, the same offset when it sends the chunk again.
	next := make([]int64, len(s.seen))
	for i, says := len(s.seen)-1, int64(-1); i >= 0; i-- {
		next[i] = says
		if p := s.seen[i].path; (p == workerproto.PathLog || p == workerproto.PathComplete) && s.seen[i].logBytes >= 0 {
			says = s.seen[i].logBytes
		}
	}
	var longest time.Duration
	var heard time.Time
	for i, c := range s.seen {
		switch {
		case c.path == workerproto.PathStart:
			heard = c.arrived
		case c.path == workerproto.PathLog && c.logBytes >= 0 && next[i] > c.logBytes:
			longest = max(longest, s.seen[i+1].arrived.Sub(heard))
			heard = c.arrived
		}
	}
	return longest
}
