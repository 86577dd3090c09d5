package singlecli

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// writeProxy is a proxy in front of the API at base that passes reads and
// forwards each write, lets the server answer it, then, instead of passing
// the answer on, does afterWrite with the write's connection. The write is
// forwarded beyond its client's going away: what afterWrite does to the
// client never undoes what the server was asked.
func writeProxy(t *testing.T, base string, afterWrite func(w http.ResponseWriter, r *http.Request)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, base+r.URL.RequestURI(), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer func() { _ = resp.Body.Close() }()
		if r.Method != http.MethodGet {
			_, _ = io.Copy(io.Discard, resp.Body)
			afterWrite(w, r)
			return
		}
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
		client.CloseIdleConnections()
	})
	return "http://" + ln.Addr().String()
}

// answerDropper is a writeProxy that loses the answer of every write: it
// closes the connection without passing the answer on, as a proxy or a
// network that fails at that moment does. A read's answer passes.
func answerDropper(t *testing.T, base string) string {
	return writeProxy(t, base, func(w http.ResponseWriter, _ *http.Request) {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
	})
}

// lostView is what a write whose answer was lost prints with -o json.
type lostView struct {
	TriggerID      string `json:"triggerId"`
	RerunOf        string `json:"rerunOf"`
	RequestID      string `json:"requestId"`
	OutcomeUnknown bool   `json:"outcomeUnknown"`
	AskAgain       string `json:"askAgain"`
}

func runsKeyed(t *testing.T, dir, like string) int {
	t.Helper()
	var n int
	if err := readOnlyDB(t, dir).QueryRow(`SELECT count(*) FROM runs WHERE idempotency_key LIKE ?`, like).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A run now whose answer is lost after the server made the Run says that
// it may have queued one and prints (on stderr, and with -o json on
// stdout) the request id it generated and the command that asks again
// with it; that command answers the Run made, never a second one. Not
// parallel: it sets $QL_TOKEN.
func TestARunNowWhoseAnswerIsLostSaysItMayHaveRunAndHowToAskAgain(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	lossy := answerDropper(t, base)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)

	code, out, errOut := ql(t, "triggers", "run", "api/yearly", "--api-url", lossy, "-o", "json")
	var lost lostView
	if err := json.Unmarshal([]byte(out), &lost); err != nil || code != 1 || !lost.OutcomeUnknown || lost.RequestID == "" || lost.TriggerID == "" {
		t.Fatalf("run now whose answer is lost: %d %q %q (%v); want exit 1 and the request id it sent, its outcome unknown", code, out, errOut, err)
	}
	want := "ql-edge triggers run api/yearly --request-id " + lost.RequestID + " -o json --api-url " + lossy
	if lost.AskAgain != want || !strings.Contains(errOut, "may have queued a Run") || !strings.Contains(errOut, "`"+want+"`") {
		t.Fatalf("ask again %q, stderr %q; want %q on both", lost.AskAgain, errOut, want)
	}
	if n := runsKeyed(t, dir, "ql3:manual:v1:%:"+lost.RequestID); n != 1 {
		t.Fatalf("%d runs keyed on request %s; the server made one", n, lost.RequestID)
	}

	code, out, errOut = ql(t, "triggers", "run", "api/yearly", "--request-id", lost.RequestID, "--api-url", base, "-o", "json")
	var again struct {
		RunID   string `json:"runId"`
		Created bool   `json:"created"`
	}
	if err := json.Unmarshal([]byte(out), &again); err != nil || code != 0 || again.Created || again.RunID == "" {
		t.Fatalf("asked again with request %s: %d %q %q; want the Run it made, not created", lost.RequestID, code, out, errOut)
	}
	if n := runsKeyed(t, dir, "ql3:manual:v1:%"); n != 1 {
		t.Fatalf("%d manual runs after asking again; want the one", n)
	}
}

// A re-run whose answer is lost says so with the command that asks again
// under the request id it sent. Not parallel: it sets $QL_TOKEN.
func TestARerunWhoseAnswerIsLostSaysItMayHaveRunAndHowToAskAgain(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := body["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", body)
	}
	trigger, _ := list[0].(map[string]any)["triggerId"].(string)
	_, first := call(t, "POST", base+"/api/v1/triggers/"+trigger+"/run", operator, `{"requestId":"orig"}`)
	orig, _ := first["runId"].(string)
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, d := call(t, "GET", base+"/api/v1/runs/"+orig, operator, "")
		if r, _ := d["run"].(map[string]any); r["state"] == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the original never succeeded: %v", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	lossy := answerDropper(t, base)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)

	code, _, errOut := ql(t, "runs", "rerun", orig, "--request-id", "deploy-7", "--api-url", lossy)
	want := "`ql-edge runs rerun " + orig + " --request-id deploy-7 --api-url " + lossy + "`"
	if code != 1 || !strings.Contains(errOut, "may have queued a re-run") || !strings.Contains(errOut, want) {
		t.Fatalf("re-run whose answer is lost: %d %q; want exit 1 saying it may have queued one and %s", code, errOut, want)
	}
	if n := runsKeyed(t, dir, "ql3:rerun:v1:"+orig+":deploy-7"); n != 1 {
		t.Fatalf("%d re-runs keyed on deploy-7; the server made one", n)
	}
}

// A backfill whose answer is lost says it may have admitted Runs, with the
// command that asks again; asked again, it admits nothing and names the
// Runs the first asking admitted. Not parallel: it sets $QL_TOKEN.
func TestABackfillWhoseAnswerIsLostIsAskedAgainAndNamesTheRunsItMade(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	lossy := answerDropper(t, base)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)
	window := []string{"--from", "2020-06-01T00:00:00Z", "--to", "2023-06-01T00:00:00Z"}

	code, out, errOut := ql(t, append([]string{"triggers", "backfill", "api/yearly", "--api-url", lossy, "-o", "json"}, window...)...)
	var lost lostView
	if err := json.Unmarshal([]byte(out), &lost); err != nil || code != 1 || !lost.OutcomeUnknown || !strings.Contains(errOut, "the backfill may have admitted Runs") {
		t.Fatalf("backfill whose answer is lost: %d %q %q (%v); want exit 1 saying it may have admitted Runs", code, out, errOut, err)
	}
	want := "ql-edge triggers backfill api/yearly --from 2020-06-01T00:00:00Z --to 2023-06-01T00:00:00Z -o json --api-url " + lossy
	if lost.AskAgain != want {
		t.Fatalf("ask again %q, want %q", lost.AskAgain, want)
	}
	code, out, errOut = ql(t, append([]string{"triggers", "backfill", "api/yearly", "--api-url", base, "-o", "json"}, window...)...)
	var again struct {
		Admitted       int      `json:"admitted"`
		RunIDs         []string `json:"runIds"`
		ExistingRunIDs []string `json:"existingRunIds"`
	}
	if err := json.Unmarshal([]byte(out), &again); err != nil || code != 0 || again.Admitted != 0 || len(again.RunIDs) != 0 || len(again.ExistingRunIDs) != 3 {
		t.Fatalf("backfill asked again: %d %q %q; want nothing admitted and the three Runs the first one made", code, out, errOut)
	}
	rows, err := readOnlyDB(t, dir).Query(`SELECT id FROM runs WHERE idempotency_key LIKE 'ql3:cron:v1:%' ORDER BY scheduled_for_ms`)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var made []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		made = append(made, id)
	}
	if err := rows.Err(); err != nil || strings.Join(made, ",") != strings.Join(again.ExistingRunIDs, ",") {
		t.Fatalf("backfilled runs %v (%v); the second asking named %v", made, err, again.ExistingRunIDs)
	}
}
