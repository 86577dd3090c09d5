package console

import (
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
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
		"pause.queued":        "%[1]d runs queued before the pause still start; cancel them in the runs list (state queued) to drop them.",
		"pause.queued.one":    "%[1]d run queued before the pause still starts; cancel it in the runs list (state queued) to drop it.",
		"paused.with_project": "paused with its project",
		"proj.paused":         "Project paused since %[1]s by %[2]s.",
		"proj.paused.note":    "Project paused since %[1]s by %[2]s: %[3]s",
	},
	"zh": {
		"proj.pause": "暂停项目", "proj.resume": "恢复项目",
		"proj.pause.help":     "暂停项目会暂停其中每个未单独暂停的触发器，以及暂停期间发布到该项目的触发器；恢复项目只恢复这些触发器。",
		"proj.done.paused":    "项目已暂停，随之暂停 %[1]d 个触发器。",
		"proj.done.resumed":   "项目已恢复，随之恢复 %[1]d 个触发器；%[2]d 个单独暂停的触发器仍保持暂停。",
		"proj.done.same.on":   "该项目已处于暂停状态；未作任何更改。",
		"proj.done.same.off":  "该项目未暂停；未作任何更改。",
		"pause.queued":        "暂停前已排队的 %[1]d 个运行仍会启动；如需丢弃，请在运行列表中取消排队（queued）的运行。",
		"paused.with_project": "随项目暂停",
		"proj.paused":         "项目自 %[1]s 起由 %[2]s 暂停。",
		"proj.paused.note":    "项目自 %[1]s 起由 %[2]s 暂停：%[3]s",
	},
}

func init() {
	for l, m := range projectPauseWords {
		maps.Copy(messages[l], m)
	}
}

// projectPauseForm is the project pause form as a refusal shows it again:
// the note typed, and the error beside it.
type projectPauseForm struct{ Note, Error string }

// projectPause pauses or resumes the project in the address ({project},
// its name) with the form's note, audited with the session's actor, and
// answers with the triggers list of that project saying what was done. A
// note refused (too long, not one line of text) is answered with the list
// again, the form holding what was typed and saying what is wrong with it.
func (c *Console) projectPause(pause bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if c.cfg.ProjectPauser == nil {
			c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server cannot pause or resume projects; use `ql projects pause|resume`").Because(refusalCannotPause))
			return
		}
		note := strings.TrimSpace(r.PostFormValue("note"))
		project := r.PathValue("project")
		res, err := c.cfg.ProjectPauser.ProjectPause(r.Context(), schedule.ProjectPauseRequest{Project: project, Pause: pause, Note: note, Actor: s.actor(r)})
		err = projectPauseRefusal(err, project)
		if isNoteRefusal(err) {
			list := r.Clone(r.Context())
			list.URL.RawQuery = url.Values{"project": {project}}.Encode()
			c.triggersList(w, list, s, statusOf(err), projectPauseForm{Note: r.PostFormValue("note"), Error: c.formError(lang(r), err)})
			return
		}
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		done := map[bool]string{true: "paused", false: "resumed"}[pause]
		if !res.Changed {
			done = map[bool]string{true: "same.on", false: "same.off"}[pause]
		}
		q := url.Values{"project": {res.ProjectName}, "project_done": {done}, "n": {strconv.Itoa(res.Triggers)}, "kept": {strconv.Itoa(res.KeptPaused)}}
		if queued := c.queuedAtPause(r, pause, run.ListParams{ProjectID: res.ProjectID}); queued > 0 {
			q.Set("queued", strconv.Itoa(queued))
		}
		http.Redirect(w, r, "/triggers?"+q.Encode(), http.StatusSeeOther)
	}
}

// projectPauseRefusal is err, when it refuses a project pause or resume
// because the project is unknown or archived, under a reason of the
// console's own: the store's reasons are those of every read of an
// unknown project and of a trigger's Run in an archived one, whose
// translations speak of publishing and of Runs, not of what the form
// asked. Any other error is returned as it is.
func projectPauseRefusal(err error, project string) error {
	switch qlerror.ReasonOf(err) {
	case schedule.RefusalProjectUnknown:
		return qlerror.New(qlerror.CodeOf(err), "no project is named %q (names are case-sensitive); choose one of the projects listed", project).Because(refusalProjectPauseUnknown, "name", project)
	case schedule.RefusalProjectArchived:
		return qlerror.New(qlerror.CodeOf(err), "project %s is archived, so none of its triggers runs and it cannot be paused or resumed; to make it active, set status: active in its definitions file and apply it", project).Because(refusalProjectPauseArchived, "name", project)
	}
	return err
}

// projectPausedLine says since when and by whom a paused project is
// paused, with its note, in language l and the page's zone; "" for a
// project not paused. The actor and the note are stored text, shown as
// they are.
func projectPausedLine(l string, st schedule.ProjectPauseState, zone string) template.HTML {
	if !st.Paused {
		return ""
	}
	at := unbroken(when(st.AtMs, zone))
	if st.Note == "" {
		return formatText(tr(l, "proj.paused"), at, st.Actor)
	}
	return formatText(tr(l, "proj.paused.note"), at, st.Actor, st.Note)
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
	queued, _ := strconv.Atoi(r.URL.Query().Get("queued"))
	return text + queuedText(lang(r), queued)
}

// queuedAtPause is, at a pause, how many Runs of filter p are queued and
// still start (run.CountQueued); 0 at a resume, and where they cannot be
// read: the pause is done, and the notice only leaves the count out.
func (c *Console) queuedAtPause(r *http.Request, pause bool, p run.ListParams) int {
	if !pause || c.cfg.Runs == nil {
		return 0
	}
	n, err := run.CountQueued(r.Context(), c.cfg.Runs, p)
	if err != nil {
		return 0
	}
	return n
}

// queuedText is the sentence, in l, saying that n Runs queued before a
// pause still start and how to drop them, after a space in English; ""
// for none.
func queuedText(l string, n int) string {
	if n <= 0 {
		return ""
	}
	sep := " "
	if l == "zh" {
		sep = ""
	}
	return sep + fmt.Sprintf(trCount(l, "pause.queued", n), n)
}
