package httpapi

import (
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// secretsRecorded is the API of a server whose secrets file is file and
// whose changes of it are recorded in trail, its log captured.
func secretsRecorded(t *testing.T, file *process.Secrets, trail audit.Appender) (http.Handler, string, *syncbuf.Buffer) {
	t.Helper()
	st, tokens := tokenStore(t)
	log := &syncbuf.Buffer{}
	h := NewHandler(Config{Tokens: st, Export: st, Secrets: file, SecretsRecord: trail,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.NewJSONHandler(log, nil))})
	return h, tokens[apitoken.Admin], log
}

// A secret set, replaced and deleted over the API is recorded each time
// with who did it and its name, a project's secret under its project, and
// never its value; a delete of a name the file lacks records nothing.
func TestASecretSetOrDeletedOverTheAPIIsRecordedByNameWithoutItsValue(t *testing.T) {
	t.Parallel()
	file := &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	trail := sqlitetest.Open(t)
	h, admin, _ := secretsRecorded(t, file, trail)
	const first, second = "first-value-Kp2", "second-value-Wd5"
	for _, r := range []struct {
		method, target, body string
		status               int
	}{
		{http.MethodPut, "/api/v1/secrets/alpha%2Fapi_token", `{"value": "` + first + `"}`, 200},
		{http.MethodPut, "/api/v1/secrets/alpha%2Fapi_token", `{"value": "` + second + `"}`, 200},
		{http.MethodDelete, "/api/v1/secrets/alpha%2Fapi_token", "", 200},
		{http.MethodDelete, "/api/v1/secrets/alpha%2Fapi_token", "", 404},
	} {
		if got, answer := call(t, h, r.method, r.target, admin, r.body); got != r.status {
			t.Fatalf("%s %s: %d %s; want %d", r.method, r.target, got, answer, r.status)
		}
	}
	page, err := trail.AuditList(t.Context(), audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range page.Records {
		actor, _, _ := strings.Cut(r.Actor, "@")
		lines = append(lines, strings.Join([]string{string(r.Action), actor, string(r.ObjectKind), r.ObjectName, r.Project, r.Note}, " "))
		if strings.Contains(r.Note+r.ObjectName+r.ObjectID, "value-") {
			t.Fatalf("record %+v holds a value", r)
		}
	}
	want := []string{
		"secret.deleted api:tok-admin secret alpha/api_token alpha ",
		"secret.set api:tok-admin secret alpha/api_token alpha replaced",
		"secret.set api:tok-admin secret alpha/api_token alpha ",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("trail %q; want %q", lines, want)
	}
}

// A secret set whose record the trail cannot write stays set, and the
// answer says so (503 audit_not_recorded) rather than answer done or
// undo it; the server's log keeps who made it.
func TestASecretChangeTheTrailCannotRecordStandsAndTheAnswerSaysSo(t *testing.T) {
	t.Parallel()
	file := &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	trail := sqlitetest.Open(t)
	h, admin, log := secretsRecorded(t, file, trail)
	if err := trail.Close(); err != nil {
		t.Fatal(err)
	}
	status, answer := call(t, h, http.MethodPut, "/api/v1/secrets/hook-key", admin, `{"value": "kept-value-Tz8"}`)
	if status != http.StatusServiceUnavailable || !strings.Contains(answer, `"reason":"audit_not_recorded"`) ||
		!strings.Contains(answer, "secret hook-key was set in the server's secrets file and stands, but the audit trail could not record it") {
		t.Fatalf("set with the trail down: %d %s; want 503 audit_not_recorded saying the secret stands", status, answer)
	}
	if got, err := file.Resolve([]string{"hook-key"}); err != nil || got["hook-key"] != "kept-value-Tz8" {
		t.Fatalf("the file resolves %v, %v; want the value set, not undone", got, err)
	}
	if logged := log.String(); !strings.Contains(logged, `"code":"audit.not_recorded","action":"secret.set","secret":"hook-key","actor":"api:tok-admin@`) {
		t.Fatalf("the log lacks the unrecorded change:\n%s", logged)
	}
}
