package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// depsCall is a dependencies change over the API with the Idempotency-Key
// key ("" none): its status, the Run it names and its reason.
func (s *consoleSite) depsCall(t *testing.T, path, key, body string) (status int, runID, reason string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+path, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.tokens[apitoken.Admin])
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		RunID string `json:"runId"`
		Error struct {
			Reason string `json:"reason"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &answer); err != nil {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
	}
	return resp.StatusCode, answer.RunID, answer.Error.Reason
}

// A dependencies change (add, install again, remove) asked again with its
// Idempotency-Key starts no second Run and answers the first's, also when
// the two are sent at once; the key with another body or route is
// refused idempotency_key_mismatch and starts nothing; without a key each
// request starts a Run of its own, as before.
func TestADependencyChangeAskedAgainWithItsIdempotencyKeyStartsNoSecondRun(t *testing.T) {
	fake := fakeInstallers(t)
	site := startConsoleSite(t)
	// called is how many times npm was called to do what.
	called := func(what string) int { return strings.Count("\n"+calls(t, fake, "npm"), "\n"+what+"\n") }

	const add = `{"kind": "node", "packages": ["axios"]}`
	ids := make([]string, 2)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			status, id, reason := site.depsCall(t, "/api/v1/dependencies", `"add-axios-1"`, add)
			if status != http.StatusOK || id == "" {
				t.Errorf("the add sent at once, %d: %d %q", i, status, reason)
			}
			ids[i] = id
		})
	}
	wg.Wait()
	if ids[0] != ids[1] {
		t.Fatalf("two adds with one key sent at once made the Runs %v; want one", ids)
	}
	site.finished(t, ids[0])
	if status, id, _ := site.depsCall(t, "/api/v1/dependencies", "add-axios-1", add); status != http.StatusOK || id != ids[0] {
		t.Errorf("the add asked again with its key: %d, Run %s; want the first's, %s", status, id, ids[0])
	}
	for _, other := range []struct{ path, body string }{
		{"/api/v1/dependencies", `{"kind": "node", "packages": ["lodash"]}`},
		{"/api/v1/dependencies/install", `{"kind": "node", "name": "axios"}`},
	} {
		if status, id, reason := site.depsCall(t, other.path, "add-axios-1", other.body); status != http.StatusBadRequest || reason != "idempotency_key_mismatch" || id != "" {
			t.Errorf("the key sent again to %s with %s: %d %q, Run %q; want 400 idempotency_key_mismatch", other.path, other.body, status, reason, id)
		}
	}
	if n := called("install"); n != 1 {
		t.Fatalf("npm installed %d times; want once, for the one Run:\n%s", n, calls(t, fake, "npm"))
	}

	for _, c := range []struct{ path, key, body string }{
		{"/api/v1/dependencies/install", "again-1", `{"kind": "node"}`},
		{"/api/v1/dependencies/remove", "rm-axios-1", `{"kind": "node", "name": "axios"}`},
	} {
		status, first, reason := site.depsCall(t, c.path, c.key, c.body)
		if status != http.StatusOK || first == "" {
			t.Fatalf("%s: %d %q", c.path, status, reason)
		}
		site.finished(t, first)
		if status, id, _ := site.depsCall(t, c.path, c.key, c.body); status != http.StatusOK || id != first {
			t.Errorf("%s asked again with its key: %d, Run %s; want the first's, %s", c.path, status, id, first)
		}
	}
	if called("install") != 2 || called("uninstall") != 1 {
		t.Errorf("npm was called with\n%s\nwant the add, one install again and one removal", calls(t, fake, "npm"))
	}

	if status, _, reason := site.depsCall(t, "/api/v1/dependencies", "no spaces please", add); status != http.StatusBadRequest || reason != "request_id_shape" {
		t.Errorf("a key of another shape: %d %q; want 400 request_id_shape", status, reason)
	}
	_, first, _ := site.depsCall(t, "/api/v1/dependencies", "", add)
	site.finished(t, first)
	if _, second, _ := site.depsCall(t, "/api/v1/dependencies", "", add); second == "" || second == first {
		t.Errorf("two adds without a key made the Runs %s and %s; want two", first, second)
	}
}

// A dependencies change's Idempotency-Key is the database's, not the
// server process's: the change asked again with its key after the server
// restarted answers the first change's Run and installs nothing again,
// and the key with another body is still refused.
func TestARetryAfterARestartAnswersTheFirstChangeAndInstallsNothingAgain(t *testing.T) {
	fake := fakeInstallers(t)
	site := startConsoleSite(t)
	const add = `{"kind": "node", "packages": ["axios"]}`
	status, first, reason := site.depsCall(t, "/api/v1/dependencies", "add-axios-restart", add)
	if status != http.StatusOK || first == "" {
		t.Fatalf("the add: %d %q", status, reason)
	}
	site.finished(t, first)
	site.restart(t)

	if status, id, reason := site.depsCall(t, "/api/v1/dependencies", "add-axios-restart", add); status != http.StatusOK || id != first {
		t.Errorf("the add asked again with its key after a restart: %d %q, Run %s; want the first's, %s", status, reason, id, first)
	}
	if status, id, reason := site.depsCall(t, "/api/v1/dependencies", "add-axios-restart", `{"kind": "node", "packages": ["lodash"]}`); status != http.StatusBadRequest ||
		reason != "idempotency_key_mismatch" || id != "" {
		t.Errorf("the key with another body after a restart: %d %q, Run %q; want 400 idempotency_key_mismatch", status, reason, id)
	}
	if n := strings.Count("\n"+calls(t, fake, "npm"), "\ninstall\n"); n != 1 {
		t.Errorf("npm installed %d times; want once, before the restart:\n%s", n, calls(t, fake, "npm"))
	}
}
