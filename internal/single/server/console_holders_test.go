package server

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A queued Run's page on a busy server names, in English and in Chinese,
// the triggers whose Runs hold the slots with how many each holds, and the
// API's answer for the Run lists them in its waiting object.
func TestTheRunPageAndTheAPINameTheTriggersHoldingABusyServersSlots(t *testing.T) {
	t.Parallel()
	b := startBusyConsole(t)
	site, c, csrf, first, second, detail := b.site, b.c, b.csrf, b.first, b.second, b.detail
	if w := detail(second).Waiting; w == nil || w.Reason != run.WaitServerBusy || len(w.Holders) != 1 ||
		w.Holders[0] != (view.SlotHolder{TriggerID: site.triggerID, Project: "shop", Trigger: "nightly", Runs: 1}) || w.MoreHolders != 0 {
		t.Fatalf("the API's second Run waits %+v; want %s held by shop/nightly's 1 Run", w, run.WaitServerBusy)
	}
	for lang, want := range map[string]string{
		"en": "this one in its turn. The slots are held by Runs of shop/nightly (1).",
		"zh": "轮到此运行时即启动。占用这些槽位的是以下触发器的运行：shop/nightly (1)。",
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+second+"?lang="+lang, nil)
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("the queued Run's page in %s does not say %q:\n%s", lang, want, page)
		}
	}
	for _, id := range []string{second, first} {
		httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+id+"/cancel", url.Values{"csrf": {csrf}})
	}
}
