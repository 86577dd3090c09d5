package singlecli

import (
	"maps"
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
		if code != 1 || out != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want exit 1", c.args, code, out, errOut)
		}
		if e := lastJSONError(t, errOut); e.Code != "not_found" || e.Reason != c.reason || !maps.Equal(e.Params, c.params) {
			t.Errorf("%v: %+v; want not_found, reason %s, params %v", c.args, e, c.reason, c.params)
		}
	}
}
