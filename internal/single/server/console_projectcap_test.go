package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A project's page says its slot cap and how many of its Runs run now,
// and, while the cap is full, how many queued Runs it holds back
// (project_busy), in English and in Chinese; a project without a cap
// says none.
func TestAProjectsPageSaysHowManyOfItsCappedRunsRunAndWait(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	page := func(lang string) string {
		t.Helper()
		_, p := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang="+lang, nil)
		return p
	}
	if p := page("en"); strings.Contains(p, `id="project-cap"`) {
		t.Fatalf("the page of a project without maxRunning says a cap:\n%s", p)
	}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 0)
	if err != nil {
		t.Fatal(err)
	}
	d.Project.MaxRunning = 1
	if _, err := site.srv.store.ProjectSave(t.Context(), d.Project); err != nil {
		t.Fatal(err)
	}
	if p := page("en"); !strings.Contains(p, `<p class="help" id="project-cap">Running 0 of 1: the project runs at most 1 of its Runs at once`) {
		t.Errorf("the page of a project capped at 1 running none:\n%s", p)
	}
	first := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, first)
	waitFor(t, "the first Run to run", 10*time.Second, func() bool {
		got, err := site.srv.store.RunGet(t.Context(), first)
		return err == nil && got.Run.State == run.Running
	})
	second := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, second)
	for lang, want := range map[string]string{
		"en": "Running 1 of 1: the project runs at most 1 of its Runs at once (maxRunning in its definitions file). 1 queued Run waits for a free slot of the project (project_busy)",
		"zh": "运行中 1 / 1：该项目最多同时运行 1 个运行（定义文件中的 maxRunning）。1 个排队中的运行在等待该项目空出槽位（project_busy）",
	} {
		if p := page(lang); !strings.Contains(p, want) {
			t.Errorf("%s: the page of a project at its cap with a Run queued does not say %q:\n%s", lang, want, p)
		}
	}
}
