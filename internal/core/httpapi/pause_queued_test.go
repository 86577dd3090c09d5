package httpapi

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// The API's answer to a project's or a trigger's pause counts the Runs
// queued before it, which the pause leaves to start (queued); a resume
// counts none.
func TestAPauseAnswerCountsTheQueuedRunsThatStillStart(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	triggerID, _ := projectWithRun(t, st, "alpha")
	token, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "ops", apitoken.Operate, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Pauser: st, ProjectPauser: st, ProjectPauses: st, Export: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	for _, c := range []struct{ target, want string }{
		{"/api/v1/triggers/" + triggerID + "/pause", `"queued":1`},
		{"/api/v1/projects/alpha/pause", `"queued":1`},
		{"/api/v1/projects/alpha/resume", `"queued":0`},
	} {
		if status, got := call(t, h, http.MethodPost, c.target, token, "{}"); status != 200 || !strings.Contains(got, c.want) {
			t.Errorf("POST %s: %d %s; want %s", c.target, status, got, c.want)
		}
	}
}
