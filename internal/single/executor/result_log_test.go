package executor

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The result an attempt ends with names its log only when its command had
// one: the server's "run finished" line points at `ql runs logs` from it,
// and a command whose log could not be created has no output to read.
func TestAResultNamesItsLogOnlyWhenItsCommandHadOne(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	withLog := h.admit(t, shell("echo hello", time.Minute))
	withoutLog := h.admit(t, shell("echo hello", time.Minute))
	attempt := map[string]string{}
	for _, runID := range []string{withLog, withoutLog} {
		var id string
		if err := h.raw.QueryRow(`SELECT id FROM attempts WHERE run_id = ?`, runID).Scan(&id); err != nil {
			t.Fatal(err)
		}
		attempt[id] = runID
	}
	logs := filepath.Join(h.dir, "logs")
	for id, runID := range attempt {
		if runID == withoutLog {
			if err := os.MkdirAll(filepath.Join(logs, id+".log"), 0o700); err != nil {
				t.Fatal(err)
			}
		}
	}
	d, sig := h.dispatcher(t, dispatcherOpts{concurrency: 2, onError: func(error) {}})
	d.Wake()
	for _, res := range sig.wait(t, 2) {
		want := filepath.Join(logs, res.ID+".log")
		if attempt[res.ID] == withoutLog {
			want = ""
		}
		if res.LogPath != want {
			t.Errorf("the result of run %s names the log %q; want %q", attempt[res.ID], res.LogPath, want)
		}
	}
}
