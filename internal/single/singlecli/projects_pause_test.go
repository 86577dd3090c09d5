package singlecli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// twoTriggersFile is quietFile's project with a second trigger.
const twoTriggersFile = quietFile + `  - name: monthly
    task: noop
    cron: "0 0 1 * *"
    timezone: UTC
`

// ql projects pause pauses the project's triggers that are not paused,
// says so plainly when repeated, and triggers list and show (text and
// JSON) say which are paused with their project; ql projects resume
// resumes those alone and says how many stay paused on their own; an
// unknown project is refused saying where to look.
func TestProjectsPauseAndResumeSayWhatTheyDidAndTriggersShowWhichArePausedWithTheirProject(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, twoTriggersFile)
	if code, _, errOut := ql(t, "triggers", "pause", "monthly", "--note", "own reason", "--data-dir", dir); code != 0 {
		t.Fatalf("pause monthly: %d %q", code, errOut)
	}
	code, out, errOut := ql(t, "projects", "pause", "api", "--note", "release freeze", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "project api: paused at") || !strings.Contains(out, "1 trigger paused now, 1 already paused on its own") || !strings.Contains(out, "projects resume api") {
		t.Fatalf("projects pause: %d %q %q; want it paused now with 1 trigger, 1 already paused, and the command that resumes it", code, out, errOut)
	}
	if code, out, _ := ql(t, "projects", "pause", "api", "--note", "other", "--data-dir", dir); code != 0 || !strings.Contains(out, "already paused since") || !strings.Contains(out, "release freeze") {
		t.Fatalf("projects pause again: %d %q; want it to say the project is already paused, with the first note", code, out)
	}
	if code, out, _ := ql(t, "triggers", "list", "--data-dir", dir); code != 0 || strings.Count(out, "paused with its project") != 1 {
		t.Fatalf("triggers list: %d %q; want one trigger paused with its project", code, out)
	}
	if code, out, _ := ql(t, "triggers", "show", "yearly", "--data-dir", dir); code != 0 || !strings.Contains(out, "with its project api since") || !strings.Contains(out, "release freeze") {
		t.Fatalf("triggers show yearly: %d %q; want it paused with its project and the project's note", code, out)
	}
	if d := showJSON(t, dir, "yearly"); !d.Paused || !d.Trigger.PausedWithProject || d.PauseNote != "release freeze" {
		t.Fatalf("show -o json of yearly: paused %v with its project %v note %q", d.Paused, d.Trigger.PausedWithProject, d.PauseNote)
	}
	if d := showJSON(t, dir, "monthly"); !d.Paused || d.Trigger.PausedWithProject || d.PauseNote != "own reason" {
		t.Fatalf("show -o json of monthly: paused %v with its project %v note %q; want its own pause", d.Paused, d.Trigger.PausedWithProject, d.PauseNote)
	}
	code, out, _ = ql(t, "projects", "resume", "api", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "project api: resumed at") || !strings.Contains(out, "1 trigger paused on its own stays paused") {
		t.Fatalf("projects resume: %d %q; want it resumed, saying 1 trigger stays paused on its own", code, out)
	}
	if d := showJSON(t, dir, "yearly"); d.Paused {
		t.Fatal("yearly is still paused after its project's resume")
	}
	if d := showJSON(t, dir, "monthly"); !d.Paused || d.PauseNote != "own reason" {
		t.Fatalf("monthly: paused %v note %q; want its own pause kept", d.Paused, d.PauseNote)
	}
	if code, out, _ := ql(t, "projects", "resume", "api", "--data-dir", dir); code != 0 || !strings.Contains(out, "not paused; nothing changed") {
		t.Fatalf("projects resume again: %d %q; want it to say the project is not paused", code, out)
	}
	if code, _, errOut := ql(t, "projects", "pause", "nowhere", "--data-dir", dir); code == 0 || !strings.Contains(errOut, "project nowhere does not exist") {
		t.Fatalf("projects pause of an unknown project: %d %q; want it refused saying it does not exist", code, errOut)
	}
}

// A project pause with one trigger already paused on its own says 1
// paused now and 1 already paused, in text and JSON: "with 1 trigger"
// read as all of them.
func TestAProjectPauseSaysHowManyTriggersItPausedNowAndHowManyWereAlreadyPaused(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, twoTriggersFile)
	if code, _, errOut := ql(t, "triggers", "pause", "monthly", "--data-dir", dir); code != 0 {
		t.Fatalf("pause monthly: %d %q", code, errOut)
	}
	code, out, errOut := ql(t, "projects", "pause", "api", "-o", "json", "--data-dir", dir)
	var got view.ProjectPause
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("projects pause -o json: %d %q %q", code, out, errOut)
	}
	if got.Triggers != 1 || got.AlreadyPaused != 1 || !strings.Contains(out, `"alreadyPaused": 1`) {
		t.Fatalf("projects pause -o json: %q; want triggers 1 and alreadyPaused 1", out)
	}
}

// ql projects show says whether the project is paused: since when, by
// whom and with which note while it is (text and -o json), and "no" once
// it is resumed.
func TestProjectsShowSaysWhetherTheProjectIsPausedSinceWhenByWhomAndWhy(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	if code, out, _ := ql(t, "projects", "show", "api", "--data-dir", dir); code != 0 || !strings.Contains(out, "paused    no") {
		t.Fatalf("projects show of a project never paused: %d %q; want it to say it is not paused", code, out)
	}
	if code, _, errOut := ql(t, "projects", "pause", "api", "--note", "release freeze", "--data-dir", dir); code != 0 {
		t.Fatalf("projects pause: %d %q", code, errOut)
	}
	code, out, _ := ql(t, "projects", "show", "api", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "paused    yes, since ") || !strings.Contains(out, " by ") || !strings.Contains(out, "(note: release freeze)") {
		t.Fatalf("projects show of the paused project: %d %q; want since when, by whom and its note", code, out)
	}
	code, out, _ = ql(t, "projects", "show", "api", "-o", "json", "--data-dir", dir)
	var p struct {
		Pause *struct {
			Paused      bool
			Note, Actor string
			AtMs        int64
		}
	}
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || p.Pause == nil || !p.Pause.Paused || p.Pause.Note != "release freeze" || p.Pause.Actor == "" || p.Pause.AtMs == 0 {
		t.Fatalf("projects show -o json of the paused project: %d %q (%v); want its pause with note, actor and time", code, out, err)
	}
	ql(t, "projects", "resume", "api", "--data-dir", dir)
	if code, out, _ := ql(t, "projects", "show", "api", "--data-dir", dir); code != 0 || !strings.Contains(out, "paused    no") {
		t.Fatalf("projects show of the resumed project: %d %q; want it to say it is not paused", code, out)
	}
}
