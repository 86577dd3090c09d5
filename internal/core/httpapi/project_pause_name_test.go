package httpapi

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A project's pause and resume refuse a malformed name as GET
// /api/v1/projects/{name} does, 400 name_shape, not as an unknown project;
// an unknown well-formed one stays 404 project_missing.
func TestProjectPauseAndResumeRefuseAMalformedNameAsTheProjectRouteDoes(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	publishTrigger(t, st, "hourly", "0 * * * *")
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, ProjectPauser: st, Export: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	for _, verb := range []string{"pause", "resume"} {
		if a := request(t, h, "POST", "/api/v1/projects/Bad%20Name/"+verb, tokens[apitoken.Operate], "{}"); a.status != 400 || a.reason != "name_shape" {
			t.Errorf("%s of a malformed name: %d %s %q; want 400 name_shape", verb, a.status, a.reason, a.msg)
		}
		if a := request(t, h, "POST", "/api/v1/projects/nope/"+verb, tokens[apitoken.Operate], "{}"); a.status != 404 || a.reason != "project_missing" || !strings.Contains(a.msg, "nope") {
			t.Errorf("%s of an unknown name: %d %s %q; want 404 project_missing", verb, a.status, a.reason, a.msg)
		}
	}
}
