package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/executor"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// leakedPiece is a piece of secret found in text — the whole value, any
// 4 bytes of it (the shortest secret masked), or one of its bytes quoted
// as the JSON decoder quotes the character it stopped at ('x') — or ""
// when there is none.
func leakedPiece(text, secret string) string {
	for n := len(secret); n >= 4; n-- {
		for i := 0; i+n <= len(secret); i++ {
			if strings.Contains(text, secret[i:i+n]) {
				return secret[i : i+n]
			}
		}
	}
	for i := range len(secret) {
		q := strconv.Quote(secret[i : i+1])
		if quoted := "'" + q[1:len(q)-1] + "'"; strings.Contains(text, quoted) {
			return quoted
		}
	}
	return ""
}

// A secrets file that is not a JSON object of string values fails the Run
// that needs one of its secrets without starting it, and the error says
// what is wrong with the file — where its JSON breaks off, or which key's
// value is not a string — quoting no byte of it: whatever the file's
// shape, no piece of the secret in it reaches the Run's log, the server's
// log lines or the API's answer about the Run.
func TestASecretsFileThatIsNotJSONLeaksNoByteOfItIntoTheRunsErrorTheLogsOrTheAPI(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := project.Project{ID: ids.New(), Name: "secrets", Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "needs", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "echo started", TimeoutMs: time.Minute.Milliseconds(),
			Env: []task.EnvVar{{Name: "TOKEN", SecretRef: "api-token"}}}})
	if err != nil {
		t.Fatal(err)
	}
	triggerID := ids.New()
	if _, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, triggerID, tk, 0, ids.New(),
		trigger.Spec{Name: "needs", Enabled: true, Cron: trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.Skip}}); err != nil {
		t.Fatal(err)
	}
	token, _, err := apitoken.Create(t.Context(), b.Store, "tester", ids.New(), "operator", apitoken.Operate, 0)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()

	var logs syncbuf.Buffer
	srv, err := startQuiet(t, Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	api := "http://" + srv.Addr() + "/api/v1"
	const secret = "Zq7-Wv9!Kx4"
	for _, shape := range []struct {
		// value is the secret as the file holds it.
		name, file, says, value string
	}{
		{"the bare value", secret, "breaks off at byte 1 of 11", secret},
		{"an unquoted value", `{"api-token": ` + secret + `}`, "breaks off at byte 15 of", secret},
		{"a bad escape inside the value", `{"api-token": "Zq7-\Wv9!Kx4"}`, "breaks off at byte 21 of", secret},
		{"a control character inside the value", "{\"api-token\": \"Zq7-\tWv9!Kx4\"}", "breaks off at byte 20 of", "Zq7-\tWv9!Kx4"},
		{"a cut-off value", `{"api-token": "` + secret, "breaks off at byte 26 of 26", secret},
		{"a value that is a number", `{"api-token": 7392018465, "other": "` + secret + `"}`, `the value of "api-token" is not a JSON string`, secret},
		{"a quoted value, not an object", `"` + secret + `"`, "it holds a JSON string, not an object", secret},
		{"an array of the value", `["` + secret + `"]`, "it holds a JSON array, not an object", secret},
	} {
		if err := os.WriteFile(LayoutOf(dir).Secrets, []byte(shape.file), 0o600); err != nil {
			t.Fatal(err)
		}
		status, body, _ := httpcall.Bearer(t, http.MethodPost, api+"/triggers/"+triggerID+"/run", token, []byte(`{"requestId": "`+ids.New()+`"}`))
		var started struct{ RunID string }
		if status != http.StatusOK || json.Unmarshal(body, &started) != nil || started.RunID == "" {
			t.Fatalf("%s: run now: %d %s", shape.name, status, body)
		}
		var answer []byte
		waitFor(t, shape.name+": the Run to fail", 30*time.Second, func() bool {
			status, body, _ := httpcall.Bearer(t, http.MethodGet, api+"/runs/"+started.RunID, token, nil)
			answer = body
			return status == http.StatusOK && strings.Contains(string(body), `"state":"failed"`)
		})
		var got struct{ Attempts []struct{ ID string } }
		if err := json.Unmarshal(answer, &got); err != nil || len(got.Attempts) != 1 {
			t.Fatalf("%s: the API's answer: %v %s", shape.name, err, answer)
		}
		var runLog strings.Builder
		if err := executor.ReadLog(LayoutOf(dir).Logs, got.Attempts[0].ID, &runLog); err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"the Run's log": runLog.String(), "the server's log": logs.String(), "the API's answer": string(answer)} {
			if piece := leakedPiece(text, shape.value); piece != "" {
				t.Errorf("%s: %s holds %q of the secret:\n%s", shape.name, what, piece, text)
			}
		}
		if !strings.Contains(runLog.String(), fmt.Sprintf("secrets file %s is not a JSON object of string values: ", LayoutOf(dir).Secrets)) ||
			!strings.Contains(runLog.String(), shape.says) {
			t.Errorf("%s: the Run's log does not say the file is not a JSON object of strings and %q:\n%s", shape.name, shape.says, runLog.String())
		}
	}
}
