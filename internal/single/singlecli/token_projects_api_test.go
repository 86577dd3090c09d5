package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// triggerIDIn is the id of the first trigger of project in the JSON of
// `triggers list -o json`.
func triggerIDIn(t *testing.T, listed, project string) string {
	t.Helper()
	var v struct {
		Triggers []struct {
			TriggerID   string `json:"triggerId"`
			ProjectName string `json:"projectName"`
		} `json:"triggers"`
	}
	if err := json.Unmarshal([]byte(listed), &v); err != nil {
		t.Fatalf("triggers list -o json: %v: %q", err, listed)
	}
	for _, tg := range v.Triggers {
		if tg.ProjectName == project {
			return tg.TriggerID
		}
	}
	t.Fatalf("no trigger of %s in %q", project, listed)
	return ""
}

// A token bound to project alpha, used by `ql --api-url`, pauses alpha's
// trigger but is told charlie's trigger id is one no trigger has (exit 1,
// as for a made-up id), is refused charlie named by its name, by a
// --project filter or in project/trigger with exit 5 and the reason
// project_not_in_scope naming the token and what to do, and lists alpha's
// triggers only. Not parallel: it sets $QL_TOKEN.
func TestTheCLIOverTheAPIShowsAProjectBoundTokensRefusal(t *testing.T) {
	dir := installedDir(t)
	for _, p := range []string{"alpha", "charlie"} {
		applyDefs(t, dir, strings.Replace(quietFile, "project: api\n", "project: "+p+"\n", 1))
	}
	code, out, errOut := ql(t, "tokens", "create", "alpha-ci", "--scope", "operate", "--project", "alpha", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("tokens create --project: %d %q", code, errOut)
	}
	base := serveAPI(t, dir, "standalone")
	code, local, errOut := ql(t, "triggers", "list", "-o", "json", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("triggers list: %d %q", code, errOut)
	}
	charlie := triggerIDIn(t, local, "charlie")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", strings.TrimSpace(out))
	code, _, errOut = ql(t, "triggers", "pause", charlie, "--api-url", base)
	if code != 1 || !strings.Contains(errOut, "trigger "+charlie+" does not exist") || strings.Contains(errOut, "charlie") {
		t.Errorf("pausing charlie's trigger by its id with alpha's token: %d %q; want exit 1 saying no such trigger, never charlie", code, errOut)
	}
	for _, args := range [][]string{
		{"triggers", "pause", "charlie/yearly"},
		{"runs", "list", "--project", "charlie"},
		{"runs", "list", "--project", "charlie", "--trigger", "yearly"},
		{"triggers", "list", "--project", "charlie"},
		{"runs", "cancel", "--state", "queued", "--project", "charlie"},
	} {
		code, _, errOut = ql(t, append(args, "--api-url", base)...)
		if code != 5 || !strings.Contains(errOut, `token "alpha-ci" is bound to the project alpha and may not act on project charlie`) {
			t.Errorf("%v with alpha's token: %d %q; want exit 5 naming the token's project", args, code, errOut)
		}
		if args[1] == "cancel" {
			continue // its -o json prints one Run's cancel only
		}
		code, _, errOut = ql(t, append(args, "-o", "json", "--api-url", base)...)
		if code != 5 || !strings.Contains(errOut, `"reason":"project_not_in_scope"`) {
			t.Errorf("%v -o json with alpha's token: %d %q; want the reason project_not_in_scope", args, code, errOut)
		}
	}
	if code, _, errOut := ql(t, "triggers", "pause", "alpha/yearly", "--api-url", base); code != 0 {
		t.Errorf("pausing alpha's trigger with alpha's token: %d %q", code, errOut)
	}
	code, listed, errOut := ql(t, "triggers", "list", "--api-url", base)
	if code != 0 || !strings.Contains(listed, "alpha") || strings.Contains(listed, "charlie") {
		t.Errorf("triggers list with alpha's token: %d %q %q; want alpha's trigger only", code, listed, errOut)
	}
}
