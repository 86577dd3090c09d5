package console

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// projectPauseWords are the words of the project pause form and of its
// notices, merged into messages at start: they live beside the one page
// section that uses them.
var projectPauseWords = map[string]map[string]string{
	"en": {
		"proj.pause": "Pause project", "proj.resume": "Resume project",
		"proj.pause.help":     "Pausing the project pauses each of its triggers not paused on its own, and those published into it while it is paused; resuming it resumes exactly those.",
		"proj.done.paused":    "Project paused with %[1]d of its triggers.",
		"proj.done.resumed":   "Project resumed with %[1]d of its triggers; %[2]d paused on their own stay paused.",
		"proj.done.same.on":   "The project was paused already; nothing changed.",
		"proj.done.same.off":  "The project was not paused; nothing changed.",
		"paused.with_project": "paused with its project",
	},
	"zh": {
		"proj.pause": "暂停项目", "proj.resume": "恢复项目",
		"proj.pause.help":     "暂停项目会暂停其中每个未单独暂停的触发器，以及暂停期间发布到该项目的触发器；恢复项目只恢复这些触发器。",
		"proj.done.paused":    "项目已暂停，随之暂停 %[1]d 个触发器。",
		"proj.done.resumed":   "项目已恢复，随之恢复 %[1]d 个触发器；%[2]d 个单独暂停的触发器仍保持暂停。",
		"proj.done.same.on":   "该项目已处于暂停状态；未作任何更改。",
		"proj.done.same.off":  "该项目未暂停；未作任何更改。",
		"paused.with_project": "随项目暂停",
	},
}

func init() {
	for l, m := range projectPauseWords {
		maps.Copy(messages[l], m)
	}
}

// projectPause pauses or resumes the project in the address ({project},
// its name) with the form's note, audited with the session's actor, and
// answers with the triggers list of that project saying what was done.
func (c *Console) projectPause(pause bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if c.cfg.ProjectPauser == nil {
			c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server cannot pause or resume projects; use `ql projects pause|resume`").Because(refusalCannotPause))
			return
		}
		note := ""
		if pause {
			note = strings.TrimSpace(r.PostFormValue("note"))
		}
		res, err := c.cfg.ProjectPauser.ProjectPause(r.Context(), schedule.ProjectPauseRequest{Project: r.PathValue("project"), Pause: pause, Note: note, Actor: s.actor(r)})
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		done := map[bool]string{true: "paused", false: "resumed"}[pause]
		if !res.Changed {
			done = map[bool]string{true: "same.on", false: "same.off"}[pause]
		}
		q := url.Values{"project": {res.ProjectName}, "project_done": {done}, "n": {strconv.Itoa(res.Triggers)}, "kept": {strconv.Itoa(res.KeptPaused)}}
		http.Redirect(w, r, "/triggers?"+q.Encode(), http.StatusSeeOther)
	}
}

// projectDone is the notice of what a project pause or resume just did
// (?project_done=, projectPause), in the page's language; "" when the
// address asks for none or names no such notice. The counts are the
// address's, written by projectPause: a notice, never a record.
func projectDone(r *http.Request) string {
	key := "proj.done." + r.URL.Query().Get("project_done")
	if _, ok := projectPauseWords["en"][key]; !ok {
		return ""
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	kept, _ := strconv.Atoi(r.URL.Query().Get("kept"))
	text := tr(lang(r), key)
	if strings.Contains(text, "%[") {
		text = fmt.Sprintf(text, n, kept)
	}
	return text
}
