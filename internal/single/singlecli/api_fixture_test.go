package singlecli

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The API tests serve a data directory that applyDefs filled, with tokens
// made by newToken before serveAPI starts the server, and look at what the
// server wrote through readOnlyDB.

const quietFile = `project: api
tasks:
  - name: noop
    script: "true"
triggers:
  - name: yearly
    task: noop
    cron: "0 0 1 1 *"
    timezone: UTC
`

// applyDefs applies defs to dir as `ql apply` does.
func applyDefs(t *testing.T, dir, defs string) {
	t.Helper()
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "api.yaml", defs), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
}

// readOnlyDB opens dir's database for queries only, closed when the test
// ends.
func readOnlyDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var listening = regexp.MustCompile(`http listening.* addr=(\S+)`)

// testStopTimeout is the stop timeout of the servers whose tests assert a
// clean exit: at 1s, the quarter of it left after a command is killed to
// record it ran out on a loaded machine.
const testStopTimeout = "5s"

// readyWithin is how long serveAPI waits for a server to be ready: the
// test's patience, not a claim about how fast a server starts, which a
// loaded machine running the race detector stretches.
const readyWithin = time.Minute

// serveAPI serves dir with the API on a free loopback port and returns its
// base URL once it is ready: the address is bound, and logged, before the
// start completes.
func serveAPI(t *testing.T, dir, profile string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errOut := &syncBuffer{}
	exit := make(chan int, 1)
	go func() {
		args := append([]string{"serve", "--profile", profile, "--data-dir", dir, "--http-addr", "127.0.0.1:0", "--stop-timeout", testStopTimeout}, extra...)
		exit <- cli.Main(ctx, Options("ql"), args, &syncBuffer{}, errOut)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-exit; code != 0 {
			t.Errorf("serve exited %d: %s", code, errOut.String())
		}
	})
	deadline := time.Now().Add(readyWithin)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(errOut.String()); m != nil {
			base := "http://" + m[1]
			for time.Now().Before(deadline) {
				if st, _, _ := httpcall.Bearer(t, http.MethodGet, base+"/readyz", "", nil); st == http.StatusOK {
					return base
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Fatalf("serve at %s was not ready within %s: %s", base, readyWithin, errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("serve logged no listening address within %s: %s", readyWithin, errOut.String())
	return ""
}

// call sends body to url with token, if any, as its bearer and decodes the
// API's answer, which is JSON.
func call(t *testing.T, method, url, token, body string) (int, map[string]any) {
	t.Helper()
	st, raw, _ := httpcall.Bearer(t, method, url, token, []byte(body))
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s %s: %q is not JSON", method, url, raw)
	}
	return st, v
}

func newToken(t *testing.T, dir, name, scope string) string {
	t.Helper()
	code, out, errOut := ql(t, "tokens", "create", name, "--scope", scope, "--data-dir", dir)
	secret := strings.TrimSpace(out)
	if code != 0 || !apitoken.LooksLikeToken(secret) || !strings.Contains(errOut, "shown only this once") {
		t.Fatalf("tokens create: %d %q %q", code, out, errOut)
	}
	return secret
}
