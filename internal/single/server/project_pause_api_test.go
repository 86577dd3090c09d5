package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// TestTheAPIPausesAndResumesAProjectWithTheOperateScope: POST
// /api/v1/projects/{project}/pause needs the operate scope, pauses the
// project's triggers (GET /api/v1/triggers/{id} then says paused with its
// project) and says when nothing changed; /resume resumes them with the
// note it is given (kept with each trigger's resume record), a note too
// long refused as a pause's; an unknown project is 404.
func TestTheAPIPausesAndResumesAProjectWithTheOperateScope(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	operate := site.tokens[apitoken.Operate]
	project := site.base + "/api/v1/projects/shop"
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, project+"/pause", site.tokens[apitoken.Read], []byte(`{}`)); st != http.StatusForbidden {
		t.Fatalf("a project pause with a read token: %d %s; want 403", st, body)
	}
	var got struct {
		ProjectID       string
		Changed, Paused bool
		Note            string
		Triggers        int
	}
	st, body, _ := httpcall.Bearer(t, http.MethodPost, project+"/pause", operate, []byte(`{"note":"freeze"}`))
	if err := json.Unmarshal(body, &got); st != http.StatusOK || err != nil || !got.Changed || !got.Paused || got.Note != "freeze" || got.Triggers != 1 || got.ProjectID != site.projectID {
		t.Fatalf("pause: %d %s; want the project paused with its note and its 1 trigger", st, body)
	}
	st, body, _ = httpcall.Bearer(t, http.MethodPost, project+"/pause", operate, []byte(`{"note":"again"}`))
	if err := json.Unmarshal(body, &got); st != http.StatusOK || err != nil || got.Changed || !got.Paused || got.Note != "freeze" {
		t.Fatalf("pause again: %d %s; want nothing changed and the first note", st, body)
	}
	var trig struct{ Paused, PausedWithProject bool }
	st, body, _ = httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/triggers/"+site.triggerID, site.tokens[apitoken.Read], nil)
	if err := json.Unmarshal(body, &struct{ Trigger any }{&trig}); st != http.StatusOK || err != nil || !trig.Paused || !trig.PausedWithProject {
		t.Fatalf("the trigger of the paused project: %d %s; want it paused with its project", st, body)
	}
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, project+"/resume", operate, []byte(`{"note":"`+strings.Repeat("x", schedule.MaxPauseNote+1)+`"}`)); st != http.StatusBadRequest ||
		!strings.Contains(string(body), string(schedule.RefusalPauseNoteTooLong)) {
		t.Fatalf("a resume with a note too long: %d %s; want 400 %s", st, body, schedule.RefusalPauseNoteTooLong)
	}
	st, body, _ = httpcall.Bearer(t, http.MethodPost, project+"/resume", operate, []byte(`{"note":"freeze over"}`))
	if err := json.Unmarshal(body, &got); st != http.StatusOK || err != nil || !got.Changed || got.Paused || got.Triggers != 1 {
		t.Fatalf("resume: %d %s; want the project and its trigger resumed", st, body)
	}
	var audit struct {
		Audit []struct{ Action, Note string }
	}
	st, body, _ = httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/triggers/"+site.triggerID, site.tokens[apitoken.Read], nil)
	if err := json.Unmarshal(body, &audit); st != http.StatusOK || err != nil || len(audit.Audit) == 0 || audit.Audit[0].Action != "resume" || audit.Audit[0].Note != "freeze over" {
		t.Fatalf("the resumed trigger's audit: %d %s; want its newest record the resume with the note", st, body)
	}
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/projects/nowhere/pause", operate, []byte(`{}`)); st != http.StatusNotFound {
		t.Fatalf("a pause of an unknown project: %d %s; want 404", st, body)
	}
}

// GET /api/v1/projects/{name} says whether the project is paused: while
// it is, with the pause's note, actor and time; once resumed, not paused,
// with no note.
func TestTheAPIsProjectReadSaysWhetherTheProjectIsPausedWithItsNoteActorAndTime(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	type pause struct {
		Paused bool
		Note   string
		Actor  string
		AtMs   int64
	}
	read := func() *pause {
		t.Helper()
		var got struct{ Pause *pause }
		st, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/projects/shop", site.tokens[apitoken.Read], nil)
		if err := json.Unmarshal(body, &got); st != http.StatusOK || err != nil || got.Pause == nil {
			t.Fatalf("project read: %d %s; want the project with its pause", st, body)
		}
		return got.Pause
	}
	if p := read(); p.Paused || p.Note != "" {
		t.Fatalf("a project never paused reads %+v; want it not paused", p)
	}
	var paused struct{ AtMs int64 }
	st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/projects/shop/pause", site.tokens[apitoken.Operate], []byte(`{"note":"freeze"}`))
	if err := json.Unmarshal(body, &paused); st != http.StatusOK || err != nil {
		t.Fatalf("pause: %d %s", st, body)
	}
	if p := read(); !p.Paused || p.Note != "freeze" || !strings.HasPrefix(p.Actor, "api:console-operate@") || p.AtMs != paused.AtMs {
		t.Fatalf("the paused project reads %+v; want it paused at %d with its note, by the operate token", p, paused.AtMs)
	}
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/projects/shop/resume", site.tokens[apitoken.Operate], []byte(`{}`)); st != http.StatusOK {
		t.Fatalf("resume: %d %s", st, body)
	}
	if p := read(); p.Paused || p.Note != "" {
		t.Fatalf("the resumed project reads %+v; want it not paused, without a note", p)
	}
}
