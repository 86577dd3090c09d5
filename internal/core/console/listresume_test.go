package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// listRow is trigger id's row of the triggers list page, "" when it lists
// none.
func listRow(page, id string) string {
	return regexp.MustCompile(`(?s)<tr id="trigger-` + id + `">.*?</tr>`).FindString(page)
}

// resumeForm is the fields a row's Resume form posts, nil when the row
// has none.
func resumeForm(row, id string) url.Values {
	m := regexp.MustCompile(`(?s)<form method="post" action="/triggers/` + id + `/resume" class="inline">(.*?)</form>`).FindStringSubmatch(row)
	if m == nil {
		return nil
	}
	v := url.Values{}
	for _, f := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(m[1], -1) {
		v.Set(f[1], f[2])
	}
	return v
}

// A paused trigger's row in the triggers list offers Resume, in both
// languages, to the scopes its page offers it to, where the server can
// pause: the same form to the same route, which answers with the list as
// it was filtered, the trigger resumed. A row not paused offers none.
func TestAPausedTriggersRowInTheListOffersResumeAsItsPageDoes(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	a := b.triggers["a"]
	if w := b.do(apitoken.Operate, "/triggers/"+a+"/pause", url.Values{"note": {"freeze"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("pause: %d\n%s", w.Code, w.Body)
	}
	for scope, offered := range map[apitoken.Scope]bool{apitoken.Read: false, apitoken.Operate: true, apitoken.Admin: true} {
		page := b.do(scope, "/triggers/"+a, nil).Body.String()
		if strings.Contains(page, `action="/triggers/`+a+`/resume"`) != offered {
			t.Fatalf("the trigger's page to a %s token offers Resume %t, want %t", scope, !offered, offered)
		}
		for l, button := range map[string]string{"en": `<button type="submit" class="resume">Resume</button>`, "zh": `<button type="submit" class="resume">恢复</button>`} {
			page := b.do(scope, "/triggers?project=shop&q=a&lang="+l, nil).Body.String()
			row := listRow(page, a)
			if row == "" {
				t.Fatalf("the list in %s does not list trigger a:\n%s", l, page)
			}
			if (resumeForm(row, a) != nil && strings.Contains(row, button)) != offered {
				t.Errorf("the paused row in %s to a %s token offers Resume %t, want %t:\n%s", l, scope, !offered, offered, row)
			}
		}
	}
	if row := listRow(b.do(apitoken.Operate, "/triggers", nil).Body.String(), b.triggers["b"]); resumeForm(row, b.triggers["b"]) != nil {
		t.Errorf("a row not paused offers Resume:\n%s", row)
	}
	cannot := newBatchSite(t, func(cfg *Config) { cfg.Pauser = nil })
	if _, err := cannot.st.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: cannot.triggers["a"], Pause: true, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if row := listRow(cannot.do(apitoken.Admin, "/triggers", nil).Body.String(), cannot.triggers["a"]); row == "" || resumeForm(row, cannot.triggers["a"]) != nil {
		t.Errorf("a server that cannot pause offers Resume on a paused row, or lists none:\n%s", row)
	}
	form := resumeForm(listRow(b.do(apitoken.Operate, "/triggers?project=shop&q=a", nil).Body.String(), a), a)
	w := b.do(apitoken.Operate, "/triggers/"+a+"/resume", form)
	if paused, _ := b.paused(t, "a"); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/triggers?project=shop&q=a" || paused {
		t.Errorf("the row's Resume: %d to %q, paused %t; want 303 to the list as filtered, the trigger resumed", w.Code, w.Header().Get("Location"), paused)
	}
}
