package singlecli

import (
	"strings"
	"testing"
	"time"
)

// A re-run over the API and with `ql runs rerun` (over --api-url and on
// the database) makes one linked Run per request id, audited with who
// asked; a read token may not, and a Run that has not finished is refused
// with 409. Not parallel: it sets $QL_TOKEN.
func TestARerunOverTheAPIAndTheCLIIsLinkedAuditedAndOncePerRequest(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := body["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", body)
	}
	trigger, _ := list[0].(map[string]any)["triggerId"].(string)
	_, first := call(t, "POST", base+"/api/v1/triggers/"+trigger+"/run", operator, `{"requestId":"orig"}`)
	orig, _ := first["runId"].(string)
	// The Run may already have ended (its command is `true`): then the
	// re-run goes ahead, else it is refused as unfinished.
	st, early := call(t, "POST", base+"/api/v1/runs/"+orig+"/rerun", operator, `{"requestId":"too-early"}`)
	e, _ := early["error"].(map[string]any)
	if msg, _ := e["message"].(string); st != 200 && (st != 409 || e["code"] != "failed_precondition" || !strings.Contains(msg, "only a finished Run")) {
		t.Fatalf("re-run of a Run that may not have finished: %d %v", st, early)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, d := call(t, "GET", base+"/api/v1/runs/"+orig, reader, "")
		if r, _ := d["run"].(map[string]any); r["state"] == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the original never succeeded: %v", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st, body := call(t, "POST", base+"/api/v1/runs/"+orig+"/rerun", reader, `{"requestId":"r1"}`); st != 403 {
		t.Fatalf("re-run with a read token: %d %v", st, body)
	}
	st, again := call(t, "POST", base+"/api/v1/runs/"+orig+"/rerun", operator, `{"requestId":"r1"}`)
	if st != 200 || again["created"] != true || again["runId"] == "" || again["rerunOf"] != orig {
		t.Fatalf("re-run: %d %v", st, again)
	}
	if st, same := call(t, "POST", base+"/api/v1/runs/"+orig+"/rerun", operator, `{"requestId":"r1"}`); st != 200 || same["created"] != false || same["runId"] != again["runId"] {
		t.Fatalf("re-run again with the same request id: %d %v, first %v", st, same, again)
	}
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)
	code, out, errOut := ql(t, "runs", "rerun", orig, "--request-id", "r1", "--api-url", base)
	if code != 0 || !strings.Contains(out, "already made run "+again["runId"].(string)) {
		t.Fatalf("runs rerun over the API with the same request id: %d %q %q", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "rerun", orig, "--request-id", "r2", "--data-dir", dir, "-o", "json")
	if code != 0 || !strings.Contains(out, `"created": true`) {
		t.Fatalf("runs rerun on the database: %d %q %q", code, out, errOut)
	}
	db := readOnlyDB(t, dir)
	var n int
	var payload string
	if err := db.QueryRow(`SELECT count(*) FROM runs WHERE rerun_of = ? AND idempotency_key IN (?, ?)`, orig,
		"ql3:rerun:v1:"+orig+":r1", "ql3:rerun:v1:"+orig+":r2").Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d re-runs of the original keyed r1 and r2 (%v), want one each", n, err)
	}
	if err := db.QueryRow(`SELECT payload FROM run_events WHERE run_id = ? AND name = 'run.created'`, again["runId"]).Scan(&payload); err != nil ||
		!strings.Contains(payload, `"actor":"api:op@127.0.0.1"`) || !strings.Contains(payload, `"rerunOf":"`+orig+`"`) {
		t.Fatalf("run.created payload %q %v; want the token and address as its actor and the original", payload, err)
	}
}
