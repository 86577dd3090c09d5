package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// applyOverAPI publishes the definitions file over the site's API, as an
// admin token, and returns the trigger of project it lists (the file's
// only one there).
func (s *consoleSite) applyOverAPI(t *testing.T, file []byte, project string) view.Trigger {
	t.Helper()
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, s.base+"/api/v1/apply", s.tokens[apitoken.Admin], file); st != http.StatusOK {
		t.Fatalf("apply: %d %s", st, body)
	}
	st, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/triggers", s.tokens[apitoken.Read], nil)
	var list view.TriggerList
	if err := json.Unmarshal(body, &list); st != http.StatusOK || err != nil {
		t.Fatalf("triggers: %d %s", st, body)
	}
	for _, tg := range list.Triggers {
		if tg.ProjectName == project {
			return tg
		}
	}
	t.Fatalf("the triggers listed after the apply have none of project %s: %s", project, body)
	return view.Trigger{}
}

// runNowOverAPI asks the site's API, as an operator token, to run the
// trigger now.
func (s *consoleSite) runNowOverAPI(t *testing.T, triggerID string) {
	t.Helper()
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, s.base+"/api/v1/triggers/"+triggerID+"/run", s.tokens[apitoken.Operate],
		[]byte(`{"requestId":"`+ids.New()+`"}`)); st != http.StatusOK {
		t.Fatalf("run now: %d %s", st, body)
	}
}
