package singlecli

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// jsonErrorLine is the JSON error line a `-o json` command ends stderr
// with.
type jsonErrorLine struct {
	Code   string            `json:"code"`
	Reason string            `json:"reason"`
	Params map[string]string `json:"params"`
}

// lastJSONError reads the last line of errOut as the JSON error line.
func lastJSONError(t *testing.T, errOut string) jsonErrorLine {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var got struct {
		Error jsonErrorLine `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("stderr %q ends with no JSON error line: %v", errOut, err)
	}
	return got.Error
}

// refusal is a command line refused with a reason and its params.
type refusal struct {
	args   []string
	reason string
	params map[string]string
}

// requireRefusedInJSON runs each refusal's command with -o json on dir and
// fails unless it exits exit, prints nothing on standard output and ends
// standard error with a JSON error line of code and the refusal's reason
// and params.
func requireRefusedInJSON(t *testing.T, dir string, exit int, code string, refusals []refusal) {
	t.Helper()
	for _, c := range refusals {
		got, out, errOut := ql(t, append(c.args, "-o", "json", "--data-dir", dir)...)
		if got != exit || out != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want exit %d", c.args, got, out, errOut, exit)
		}
		if e := lastJSONError(t, errOut); e.Code != code || e.Reason != c.reason || !maps.Equal(e.Params, c.params) {
			t.Errorf("%v: %+v; want %s, reason %s, params %v", c.args, e, code, c.reason, c.params)
		}
	}
}

// A flag value or an argument the command line refuses (a --state no Run
// is in, a --scope no token has, a word where an id is needed) says its
// reason and params in the -o json error line, as a refusal by the store
// does, so a script tells them apart without reading the message.
func TestACommandLineValueRefusedNamesItsReasonInTheJSONErrorLine(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	requireRefusedInJSON(t, dir, 2, "invalid", []refusal{
		{[]string{"runs", "list", "--state", "sleeping"}, "run_list_state", map[string]string{"state": "sleeping"}},
		{[]string{"runs", "cancel", "--state", "waiting_approval"}, "run_list_state", map[string]string{"state": "waiting_approval"}},
		{[]string{"tokens", "create", "ci", "--scope", "root"}, "token_scope_invalid", map[string]string{"value": "root"}},
		{[]string{"tokens", "create", "ci"}, "token_scope_invalid", map[string]string{"value": ""}},
		{[]string{"runs", "show", "nightly"}, "argument_not_an_id", map[string]string{"kind": "run id", "value": "nightly"}},
		{[]string{"runs", "cancel", "12"}, "argument_not_an_id", map[string]string{"kind": "run id", "value": "12"}},
		{[]string{"runs", "logs", "0193a8a0-0000"}, "argument_not_an_id", map[string]string{"kind": "run id", "value": "0193a8a0-0000"}},
	})
}
