package singlecli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// titledFile is quietFile with display titles in Chinese on its project,
// task and trigger.
var titledFile = strings.NewReplacer(
	"project: api\n", "project: api\ntitle: 京东助手\n",
	"  - name: noop\n", "  - name: noop\n    title: 京东资产统计\n",
	"  - name: yearly\n", "  - name: yearly\n    title: 每日签到\n",
).Replace(quietFile)

// `ql triggers list` shows a title in a TITLE column of its own beside
// the trigger's name, only on a page that has one; -o json, `triggers show` and the API carry it as
// title beside the name, which stays the identifier.
func TestATitleIsShownBesideItsNameByTheCLIAndTheAPI(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	code, out, errOut := ql(t, "triggers", "list", "--data-dir", dir)
	if code != 0 || strings.Contains(out, "TITLE") {
		t.Fatalf("triggers list without titles: %d %q %q; want no TITLE column", code, out, errOut)
	}
	applyDefs(t, dir, titledFile)
	code, out, errOut = ql(t, "triggers", "list", "--data-dir", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "PROJECT  TRIGGER  TITLE ") || !strings.HasPrefix(lines[1], "api      yearly   每日签到 ") {
		t.Fatalf("triggers list: %d %q %q; want the title beside project api and trigger yearly", code, out, errOut)
	}
	code, out, errOut = ql(t, "triggers", "list", "-o", "json", "--data-dir", dir)
	var list view.TriggerList
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list.Triggers) != 1 {
		t.Fatalf("triggers list -o json: %d %q %q (%v)", code, out, errOut, err)
	}
	if tg := list.Triggers[0]; tg.Name != "yearly" || tg.Title != "每日签到" || tg.TaskTitle != "京东资产统计" || tg.ProjectTitle != "京东助手" {
		t.Fatalf("listed %+v; want name yearly titled 每日签到, task 京东资产统计, project 京东助手", tg)
	}
	if d := showJSON(t, dir, "api/yearly"); d.Trigger.Title != "每日签到" {
		t.Fatalf("triggers show -o json: %+v; want title 每日签到", d.Trigger)
	}
	code, out, errOut = ql(t, "triggers", "show", "api/yearly", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "\ntitle      每日签到  (task 京东资产统计, project 京东助手)\n") || !strings.Contains(out, "trigger    api/yearly (") {
		t.Fatalf("triggers show: %d %q %q; want a title line beside the name", code, out, errOut)
	}
	code, out, errOut = ql(t, "projects", "show", "api", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "\ntitle     京东助手\n") {
		t.Fatalf("projects show: %d %q %q; want the project's title under its name", code, out, errOut)
	}
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	st, body := call(t, "GET", base+"/api/v1/triggers", operator, "")
	items, _ := body["triggers"].([]any)
	if st != 200 || len(items) != 1 {
		t.Fatalf("GET /api/v1/triggers: %d %v", st, body)
	}
	if item, _ := items[0].(map[string]any); item["title"] != "每日签到" || item["name"] != "yearly" {
		t.Fatalf("the API lists %v; want title 每日签到 beside name yearly", item)
	}
	if st, p := call(t, "GET", base+"/api/v1/projects/api", operator, ""); st != 200 || p["title"] != "京东助手" || p["name"] != "api" {
		t.Fatalf("GET /api/v1/projects/api: %d %v; want title 京东助手 beside name api", st, p)
	}
}
