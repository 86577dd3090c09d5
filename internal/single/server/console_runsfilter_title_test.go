package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The Runs filter takes a trigger's display title where no trigger has
// the text as its name, as the Triggers page's search finds titles: the
// one trigger whose title holds it is filtered by; text in the titles of
// several is refused naming them; text in none is refused saying names
// and titles were looked at.
func TestTheRunsFilterFindsATriggerByItsTitle(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	file := "project: club\ntasks:\n  - name: t\n    script: \"true\"\ntriggers:\n" +
		"  - {name: checkin, title: 每日签到, task: t, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: checkin-weekly, title: 每周签到, task: t, cron: '0 3 * * 1', timezone: UTC}\n" +
		"  - {name: report, title: 日报, task: t, cron: '0 4 * * *', timezone: UTC}\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	for _, f := range []struct {
		trigger string
		status  int
		want    string
	}{
		{"日报", http.StatusOK, `<table class="cards">`},
		{"每日签到", http.StatusOK, `<table class="cards">`},
		{"签到", http.StatusBadRequest, "多个触发器的标题中含有“签到”：club/checkin (每日签到), club/checkin-weekly (每周签到)"},
		{"周报", http.StatusBadRequest, "没有名为“周报”的触发器（名称区分大小写），也没有标题中含有它的触发器"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?lang=zh&trigger="+url.QueryEscape(f.trigger), nil)
		if resp.StatusCode != f.status || !strings.Contains(page, f.want) {
			t.Errorf("the Runs filter %q: %d, want %d with %s:\n%s", f.trigger, resp.StatusCode, f.status, f.want, page)
		}
	}
}

// The Runs filter finds the one trigger whose title holds the text
// however many triggers hold it in their names: with 7 triggers named
// sign-in-N before it, the trigger titled "sign" is filtered by, and none
// of theirs counts as a title match.
func TestTheRunsFilterFindsATitleWhateverNamesHoldItsText(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	var file strings.Builder
	file.WriteString("project: club\ntasks:\n  - name: t\n    script: \"true\"\ntriggers:\n")
	for i := range 7 {
		fmt.Fprintf(&file, "  - {name: sign-in-%d, task: t, cron: '0 3 * * *', timezone: UTC}\n", i)
	}
	file.WriteString("  - {name: daily, title: sign, task: t, cron: '0 4 * * *', timezone: UTC}\n")
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file.String()}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?trigger=sign", nil); resp.StatusCode != http.StatusOK || !strings.Contains(page, `<table class="cards">`) {
		t.Fatalf("the Runs filter %q: %d; want the runs of club/daily, whose title it is:\n%s", "sign", resp.StatusCode, page)
	}
}
