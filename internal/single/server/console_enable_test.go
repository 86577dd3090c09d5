package server

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// Enable and disable need the admin scope on the API and in the console:
// an operate token is refused and offered no button; an admin token
// disables and enables the trigger (a new revision each), the console
// answering with the page the button was on, and a repeat changes nothing.
func TestEnableAndDisableNeedTheAdminScopeOnTheAPIAndInTheConsole(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	api := func(token, verb string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, site.base+"/api/v1/triggers/"+site.triggerID+"/"+verb, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	if code, _ := api(site.tokens[apitoken.Operate], "disable"); code != http.StatusForbidden {
		t.Fatalf("disable with an operate token: %d, want 403", code)
	}
	code, body := api(site.tokens[apitoken.Admin], "disable")
	if code != http.StatusOK || body["changed"] != true || body["enabled"] != false || body["revision"] != float64(2) {
		t.Fatalf("disable with an admin token: %d %v", code, body)
	}
	if code, body := api(site.tokens[apitoken.Admin], "disable"); code != http.StatusOK || body["changed"] != false {
		t.Fatalf("disable again: %d %v, want an unchanged no-op", code, body)
	}

	operator := consoleClient(t)
	site.signIn(t, operator, site.tokens[apitoken.Operate])
	for _, path := range []string{"/triggers", "/triggers/" + site.triggerID} {
		if _, page := httpcall.Form(t, operator, http.MethodGet, site.base+path, nil); strings.Contains(page, "/enable\"") || strings.Contains(page, "/disable\"") {
			t.Errorf("an operate token's %s offers enable or disable", path)
		}
	}
	admin := consoleClient(t)
	csrf := site.signIn(t, admin, site.tokens[apitoken.Admin])
	_, page := httpcall.Form(t, admin, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil)
	if !strings.Contains(page, `id="enable"`) || !strings.Contains(page, `id="pause-state">disabled<`) {
		t.Fatalf("the disabled trigger's page offers no enable button or does not say disabled:\n%s", page)
	}
	resp, _ := httpcall.Form(t, admin, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/enable", url.Values{"csrf": {csrf}, "back": {"list"}})
	if back := "/triggers?done=enable&done_id=" + site.triggerID; resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != back {
		t.Fatalf("enable from the list: %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), back)
	}
	if _, page := httpcall.Form(t, admin, http.MethodGet, site.base+"/triggers", nil); !strings.Contains(page, "/triggers/"+site.triggerID+"/disable") {
		t.Fatalf("the list offers no disable for the enabled trigger:\n%s", page)
	}
	resp, _ = httpcall.Form(t, admin, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/disable", url.Values{"csrf": {csrf}})
	if !tookForm(resp) || resp.Request.URL.Path != "/triggers/"+site.triggerID {
		t.Fatalf("disable from the trigger page: %d at %q", resp.StatusCode, resp.Request.URL)
	}
	if code, body := api(site.tokens[apitoken.Admin], "enable"); code != http.StatusOK || body["changed"] != true || body["revision"] != float64(5) {
		t.Fatalf("enable after the console's disable: %d %v, want revision 5", code, body)
	}
}

// Enabling or disabling a trigger from a filtered triggers list comes back
// to that list, filtered as it was (the form carries the list's filters),
// saying what was done.
func TestEnablingFromAFilteredTriggersListComesBackToTheSameList(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	admin := consoleClient(t)
	site.signIn(t, admin, site.tokens[apitoken.Admin])
	list := "/triggers?project=shop&q=night"
	for _, verb := range []string{"disable", "enable"} {
		_, page := httpcall.Form(t, admin, http.MethodGet, site.base+list, nil)
		form := regexp.MustCompile(`(?s)<form method="post" action="/triggers/` + site.triggerID + `/` + verb + `" class="inline">(.*?)</form>`).FindStringSubmatch(page)
		if form == nil {
			t.Fatalf("the filtered list offers no %s:\n%s", verb, page)
		}
		values := url.Values{}
		for _, in := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(form[1], -1) {
			values.Set(in[1], html.UnescapeString(in[2]))
		}
		resp, _ := httpcall.Form(t, admin, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/"+verb, values)
		back := list + "&done=" + verb + "&done_id=" + site.triggerID
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != back {
			t.Fatalf("%s from %s: %d to %q, want 303 back to %s", verb, list, resp.StatusCode, resp.Header.Get("Location"), back)
		}
	}
}
