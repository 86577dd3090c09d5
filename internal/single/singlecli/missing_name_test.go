package singlecli

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// A name the command line resolves that names nothing is refused with the
// reason the same miss has by id (trigger_missing, project_missing) and the
// name in its params, so a script reading `-o json`'s error line tells it
// from every other not_found (a Run, a notification) without the message.
func TestANameThatNamesNothingIsRefusedWithTheReasonOfWhatIsMissing(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	for _, c := range []struct {
		args   []string
		reason string
		params map[string]string
	}{
		{[]string{"triggers", "run", "nope"}, "trigger_missing", map[string]string{"name": "nope"}},
		{[]string{"triggers", "pause", "api/nope"}, "trigger_missing", map[string]string{"name": "nope", "project": "api"}},
		{[]string{"runs", "list", "--project", "nope"}, "project_missing", map[string]string{"name": "nope"}},
	} {
		code, out, errOut := ql(t, append(c.args, "-o", "json", "--data-dir", dir)...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		var got struct {
			Error struct {
				Code   string            `json:"code"`
				Reason string            `json:"reason"`
				Params map[string]string `json:"params"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || code != 1 || out != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q (%v); want exit 1 and a JSON error line", c.args, code, out, errOut, err)
		}
		if e := got.Error; e.Code != "not_found" || e.Reason != c.reason || !maps.Equal(e.Params, c.params) {
			t.Errorf("%v: %+v; want not_found, reason %s, params %v", c.args, e, c.reason, c.params)
		}
	}
}
