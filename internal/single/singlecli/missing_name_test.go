package singlecli

import "testing"

// A name the command line resolves that names nothing is refused with the
// reason the same miss has by id (trigger_missing, project_missing) and the
// name in its params, so a script reading `-o json`'s error line tells it
// from every other not_found (a Run, a notification) without the message.
func TestANameThatNamesNothingIsRefusedWithTheReasonOfWhatIsMissing(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	requireRefusedInJSON(t, dir, 1, "not_found", []refusal{
		{[]string{"triggers", "run", "nope"}, "trigger_missing", map[string]string{"name": "nope"}},
		{[]string{"triggers", "pause", "api/nope"}, "trigger_missing", map[string]string{"name": "nope", "project": "api"}},
		{[]string{"runs", "list", "--project", "nope"}, "project_missing", map[string]string{"name": "nope"}},
	})
}
