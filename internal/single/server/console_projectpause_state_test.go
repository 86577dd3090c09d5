package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The triggers list of one project offers Pause project while it is not
// paused and Resume project alone while it is, with a line saying since
// when, by whom and why it is paused, in English and in Chinese.
func TestTheTriggersListOfAProjectOffersOnlyThePauseOrResumeThatAppliesAndSaysWhoPausedIt(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang=en", nil)
	if !strings.Contains(page, `action="/projects/shop/pause"`) || strings.Contains(page, `action="/projects/shop/resume"`) || strings.Contains(page, `id="project-paused"`) {
		t.Fatalf("the list of a project not paused: want Pause project alone and no paused line:\n%s", page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/projects/shop/pause", url.Values{"csrf": {csrf}, "note": {"release freeze"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("pause project: %d:\n%s", resp.StatusCode, page)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop", nil)
	if !strings.Contains(page, `action="/projects/shop/resume"`) || strings.Contains(page, `action="/projects/shop/pause"`) {
		t.Fatalf("the list of the paused project: want Resume project alone:\n%s", page)
	}
	if !strings.Contains(page, `id="project-paused">Project paused since `) || !strings.Contains(page, " by console:token:console-operate@") || !strings.Contains(page, ": release freeze</p>") {
		t.Fatalf("the list of the paused project does not say since when, by whom and why it is paused:\n%s", page)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang=zh", nil)
	if !strings.Contains(page, `id="project-paused">项目自 `) || !strings.Contains(page, "暂停：release freeze</p>") || !strings.Contains(page, "恢复项目") || strings.Contains(page, "暂停项目</button>") {
		t.Fatalf("the Chinese list of the paused project: want its paused line and Resume project alone:\n%s", page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/projects/shop/resume", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("resume project: %d:\n%s", resp.StatusCode, page)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop", nil)
	if !strings.Contains(page, `action="/projects/shop/pause"`) || strings.Contains(page, `action="/projects/shop/resume"`) || strings.Contains(page, `id="project-paused"`) {
		t.Fatalf("the list of the resumed project: want Pause project alone and no paused line:\n%s", page)
	}
}

// A pause or resume of an unknown or an archived project is refused in
// words of its own, in Chinese as in English: not those of a publish to
// a project, nor of a trigger's Run.
func TestAProjectPauseOfAnUnknownOrArchivedProjectIsRefusedInItsOwnWords(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	refused := func(path, lang string, want ...string) {
		t.Helper()
		httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang="+lang, nil)
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+path, url.Values{"csrf": {csrf}})
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("POST %s in %s: %d, want it refused saying %q:\n%s", path, lang, resp.StatusCode, w, page)
			}
		}
		for _, other := range []string{"新项目由定义文件创建", "要向它发布", "该触发器所属的项目"} {
			if strings.Contains(page, other) {
				t.Errorf("POST %s in %s says %q, the words of another refusal:\n%s", path, lang, other, page)
			}
		}
	}
	refused("/projects/nowhere/pause", "zh", "没有名为“nowhere”的项目", "无法暂停或恢复")
	refused("/projects/nowhere/resume", "en", "no project is named &#34;nowhere&#34;")
	site.archiveShop(t)
	refused("/projects/shop/pause", "zh", "项目“shop”已归档", "不能暂停或恢复")
	refused("/projects/shop/resume", "en", "project shop is archived", "cannot be paused or resumed")
}

// A pause note the store refuses (here past its 1,000 characters) is
// answered with the page of the form again, in Chinese here: the note as
// it was typed in its field and the error beside it, on the trigger's
// page and on the triggers list's project pause form alike; nothing is
// paused.
func TestARefusedPauseNoteIsShownAgainInItsFormWithTheErrorBesideIt(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang=zh", nil)
	note := strings.Repeat("停", 1001)
	for path, form := range map[string]string{
		"/triggers/" + site.triggerID + "/pause": `id="note" name="note" maxlength="1000" value="` + note + `"`,
		"/projects/shop/pause":                   `id="project-pause-note" maxlength="1000" value="` + note + `"`,
	} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+path, url.Values{"csrf": {csrf}, "note": {note}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, form) {
			t.Errorf("POST %s with a note too long: %d, want 400 and the form holding the note typed:\n%s", path, resp.StatusCode, page)
		}
		if !strings.Contains(page, `role="alert" id="`) || !strings.Contains(page, "备注过长") {
			t.Errorf("POST %s with a note too long: no error beside the field, in Chinese:\n%s", path, page)
		}
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil)
	if strings.Contains(page, `id="resume"`) {
		t.Fatalf("a refused pause paused the trigger:\n%s", page)
	}
}
