package singlecli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// answerHolder is a writeProxy that, once the server did a write,
// signals sent and holds the answer until the client goes away: a client
// interrupted then has sent a request the server acted on.
func answerHolder(t *testing.T, base string) (string, <-chan struct{}) {
	sent := make(chan struct{})
	var once sync.Once
	return writeProxy(t, base, func(_ http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(sent) })
		<-r.Context().Done()
	}), sent
}

// interrupted runs the command args and interrupts it, as Ctrl-C does,
// once its write has reached the server (sent).
func interrupted(t *testing.T, sent <-chan struct{}, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut bytes.Buffer
	exit := make(chan int, 1)
	go func() { exit <- cli.Main(ctx, Options("ql-edge"), args, &out, &errOut) }()
	select {
	case <-sent:
		cancel()
	case code := <-exit:
		t.Fatalf("%v ended (exit %d: %q %q) before its request reached the server", args, code, out.String(), errOut.String())
	}
	return <-exit, out.String(), errOut.String()
}

// A run now, re-run or backfill interrupted (Ctrl-C) after its request
// was sent says, beside "interrupted", that it may have been done and the
// command that asks again (with -o json, the request id on stdout), as
// one whose answer was lost does; asked so, it answers what the
// interrupted request made, never a second one. Not parallel: it sets
// $QL_TOKEN.
func TestAWriteInterruptedAfterItsRequestWasSentSaysHowToAskAgain(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)

	holder, sent := answerHolder(t, base)
	code, out, errOut := interrupted(t, sent, "triggers", "run", "api/yearly", "--api-url", holder, "-o", "json")
	var lost lostView
	if err := json.Unmarshal([]byte(out), &lost); err != nil || code != cli.ExitInterrupted || !lost.OutcomeUnknown || lost.RequestID == "" {
		t.Fatalf("run now interrupted after it was sent: %d %q %q (%v); want exit %d and the request id it sent", code, out, errOut, err, cli.ExitInterrupted)
	}
	want := "ql-edge triggers run api/yearly --request-id " + lost.RequestID + " -o json --api-url " + holder
	if !strings.HasPrefix(errOut, "ql-edge: interrupted after the request was sent; the request may have queued a Run: ask again with `"+want+"`") {
		t.Fatalf("run now interrupted after it was sent: stderr %q; want it interrupted, that it may have queued a Run and `%s`", errOut, want)
	}
	code, out, errOut = ql(t, "triggers", "run", "api/yearly", "--request-id", lost.RequestID, "--api-url", base, "-o", "json")
	var again struct {
		RunID   string `json:"runId"`
		Created bool   `json:"created"`
	}
	if err := json.Unmarshal([]byte(out), &again); err != nil || code != 0 || again.Created || again.RunID == "" {
		t.Fatalf("asked again with request %s: %d %q %q; want the Run the interrupted request made", lost.RequestID, code, out, errOut)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, d := call(t, "GET", base+"/api/v1/runs/"+again.RunID, operator, "")
		if r, _ := d["run"].(map[string]any); r["state"] == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Run never succeeded: %v", d)
		}
		time.Sleep(50 * time.Millisecond)
	}

	holder, sent = answerHolder(t, base)
	code, _, errOut = interrupted(t, sent, "runs", "rerun", again.RunID, "--request-id", "deploy-8", "--api-url", holder)
	want = "`ql-edge runs rerun " + again.RunID + " --request-id deploy-8 --api-url " + holder + "`"
	if code != cli.ExitInterrupted || !strings.Contains(errOut, "interrupted after the request was sent") || !strings.Contains(errOut, "may have queued a re-run") || !strings.Contains(errOut, want) {
		t.Fatalf("re-run interrupted after it was sent: %d %q; want exit %d saying it may have queued one and %s", code, errOut, cli.ExitInterrupted, want)
	}

	holder, sent = answerHolder(t, base)
	window := []string{"--from", "2020-06-01T00:00:00Z", "--to", "2023-06-01T00:00:00Z"}
	code, _, errOut = interrupted(t, sent, append([]string{"triggers", "backfill", "api/yearly", "--api-url", holder}, window...)...)
	want = "`ql-edge triggers backfill api/yearly --from 2020-06-01T00:00:00Z --to 2023-06-01T00:00:00Z --api-url " + holder + "`"
	if code != cli.ExitInterrupted || !strings.Contains(errOut, "interrupted after the request was sent") || !strings.Contains(errOut, "the backfill may have admitted Runs") || !strings.Contains(errOut, want) {
		t.Fatalf("backfill interrupted after it was sent: %d %q; want exit %d saying it may have admitted Runs and %s", code, errOut, cli.ExitInterrupted, want)
	}
}
