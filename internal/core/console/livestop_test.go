package console

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// cancelledRun reads one Run running its one attempt for its first read,
// and cancelled, the attempt ended, from then on.
type cancelledRun struct {
	run.Reader
	reads atomic.Int64
}

func (r *cancelledRun) RunGet(_ context.Context, id string) (run.Detail, error) {
	started := int64(1)
	d := run.Detail{Run: run.Run{ID: id, State: run.Running},
		Attempts: []run.Attempt{{ID: "attempt-1", RunID: id, Number: 1, State: run.AttemptRunning, StartedAtMs: &started}}}
	if r.reads.Add(1) > 1 {
		d.Run.State, d.Attempts[0].State = run.Cancelled, run.AttemptCancelled
	}
	return d, nil
}

// The stop note a cancelled command's log ends with reaches a live log in
// the page's language, as the page says it once reloaded, never in English
// on a Chinese page: the note the log holds while the attempt still runs
// is kept back until the attempt has ended, and then sent in the page's
// words, as an event of its own that the page shows apart from the
// output; an English page gets the note's own.
func TestALiveLogSaysItsStopNoteInThePagesLanguage(t *testing.T) {
	t.Parallel()
	const note = "[qinglong: the command was stopped: the run was asked to cancel (SIGTERM; it ended within the kill grace of 5s)]\n"
	log := "started\n" + note
	from := func(_ context.Context, _ string, offset, most int64, w io.Writer) (int64, bool, error) {
		end := min(offset+most, int64(len(log)))
		n, err := io.WriteString(w, log[offset:end])
		return offset + int64(n), false, err
	}
	for lang, want := range map[string]string{
		"zh": "[青龙：命令已被停止：运行被要求取消（已发送 SIGTERM，它在 5s 的终止宽限期内结束）]\n",
		"en": note,
	} {
		_, get := liveLogConsole(t, &cancelledRun{}, from, time.Second)
		w, _ := get("/runs/r1/log?lang=" + lang)
		var pieces []string
		for _, e := range strings.Split(w.Body.String(), "\n\n") {
			for _, event := range []string{"log", "stop"} {
				if _, data, ok := strings.Cut(e, "event: "+event+"\ndata: "); ok {
					var piece string
					if err := json.Unmarshal([]byte(data), &piece); err != nil {
						t.Fatal(err)
					}
					pieces = append(pieces, event+": "+piece)
				}
			}
		}
		if len(pieces) != 2 || pieces[0] != "log: started\n" || pieces[1] != "stop: "+want {
			t.Errorf("%s: the live log sent %q; want the output while the command ran, then, once it had ended, a stop event saying %q", lang, pieces, want)
		}
	}
}
