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
// it was filtered, the trigger resumed, saying so. A row not paused offers
// none.
func TestAPausedTriggersRowInTheListOffersResumeAsItsPageDoes(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	a := b.triggers["a"]
	if w := b.send(apitoken.Operate, "/triggers/"+a+"/pause", url.Values{"note": {"freeze"}}); w.Code != http.StatusSeeOther {
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
	if paused, _ := b.paused(t, "a"); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/triggers?project=shop&q=a&done=resume&done_id="+a || paused {
		t.Errorf("the row's Resume: %d to %q, paused %t; want 303 to the list as filtered, the trigger resumed", w.Code, w.Header().Get("Location"), paused)
	}
}

// A row's Resume, Enable or Disable answers with the list saying, in the
// page's language, what it did to which trigger, as the batch form says
// its outcome; an address saying so of a trigger that is not so (changed
// since, or never) shows no notice.
func TestATriggersRowButtonSaysWhatItDidInBothLanguages(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	a, off := b.triggers["a"], b.triggers["off"]
	if w := b.send(apitoken.Operate, "/triggers/"+a+"/pause", url.Values{"note": {"freeze"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("pause: %d\n%s", w.Code, w.Body)
	}
	notice := func(scope apitoken.Scope, path string) string {
		return regexp.MustCompile(`<p class="notice" role="status" id="triggers-done">(.*?)</p>`).FindString(b.do(scope, path, nil).Body.String())
	}
	if got := notice(apitoken.Operate, "/triggers?done=resume&done_id="+a); got != "" {
		t.Errorf("the list says a paused trigger was resumed: %s", got)
	}
	w := b.do(apitoken.Operate, "/triggers/"+a+"/resume", url.Values{"back": {"list"}, "project": {"shop"}})
	for l, want := range map[string]string{"en": "Resumed shop/a.", "zh": "已恢复 shop/a。"} {
		if got := notice(apitoken.Operate, w.Header().Get("Location")+"&lang="+l); !strings.Contains(got, ">"+want+"<") {
			t.Errorf("%s: after a row's Resume the list says %q, want %q", l, got, want)
		}
	}
	w = b.do(apitoken.Admin, "/triggers/"+off+"/enable", url.Values{"back": {"list"}})
	for l, want := range map[string]string{"en": "Enabled shop/off.", "zh": "已启用 shop/off。"} {
		if got := notice(apitoken.Admin, w.Header().Get("Location")+"&lang="+l); !strings.Contains(got, ">"+want+"<") {
			t.Errorf("%s: after a row's Enable the list says %q, want %q", l, got, want)
		}
	}
	w = b.do(apitoken.Admin, "/triggers/"+off+"/disable", url.Values{"back": {"list"}})
	for l, want := range map[string]string{"en": "Disabled shop/off.", "zh": "已停用 shop/off。"} {
		if got := notice(apitoken.Admin, w.Header().Get("Location")+"&lang="+l); !strings.Contains(got, ">"+want+"<") {
			t.Errorf("%s: after a row's Disable the list says %q, want %q", l, got, want)
		}
	}
	if got := notice(apitoken.Admin, "/triggers?done=enable&done_id="+off); got != "" {
		t.Errorf("the list says a disabled trigger was enabled: %s", got)
	}
}
