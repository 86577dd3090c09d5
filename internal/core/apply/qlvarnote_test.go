package apply

import (
	"strings"
	"testing"
)

// qlVariablesFile reads QL_ variables QingLong does not set, ones it sets
// (the scripts folder of a single node's among them),
// one a script sets itself, and one an argv command passes unexpanded.
const qlVariablesFile = `project: jd
tasks:
  - {name: attempt, script: 'echo "try $QL_ATTEMPT of ${QL_RUN_ID}"'}
  - {name: slip, script: 'echo ${QL_SCHEDULE_AT:-now}; echo $QL_TRIGGER_NAME'}
  - {name: known, script: 'echo $QL_ATTEMPT_NUMBER $QL_ORIGIN; node "$QL_SCRIPTS_DIR/jd_bean.js"'}
  - {name: own, script: 'QL_MINE=1; for QL_I in 1 2; do echo $QL_MINE $QL_I; done'}
  - {name: argv, command: [/bin/echo, '$QL_ATTEMPT']}
triggers:
  - {name: attempt, task: attempt, cron: "0 5 0 * * *", timezone: Asia/Shanghai}
`

// A script reading a QL_ variable QingLong does not set is noted, naming
// the variable and the closest ones it sets; one it sets, and one the
// script sets itself, are not, nor an argv command, which expands nothing.
func TestAScriptReadingAQLVariableQingLongDoesNotSetIsNotedWithTheClosestName(t *testing.T) {
	t.Parallel()
	doc, err := Parse("jd.yaml", []byte(qlVariablesFile))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var sentence string
	for _, n := range Notes(doc, NoteScope{NowMs: 1_790_000_000_000}) {
		if n.Reason != NoteUnknownQLVariable {
			continue
		}
		sentence = n.String()
		for _, it := range n.Items {
			got = append(got, it["name"]+" "+it["variable"]+" "+it["closest"])
		}
	}
	want := []string{
		"attempt QL_ATTEMPT QL_ATTEMPT_ID/QL_ATTEMPT_NUMBER",
		"slip QL_SCHEDULE_AT QL_SCHEDULED_AT",
		"slip QL_TRIGGER_NAME QL_TRIGGER",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("noted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{"attempt ($QL_ATTEMPT; nearest: QL_ATTEMPT_ID/QL_ATTEMPT_NUMBER)", "QL_ATTEMPT_NUMBER, QL_PROJECT", "QL_ORIGIN"} {
		if !strings.Contains(sentence, w) {
			t.Errorf("the note %q does not say %q", sentence, w)
		}
	}
}

// A script reading the scripts folder a single node gives every command
// ($QL_SCRIPTS_DIR) is not noted; one misspelling it is, pointed to it.
func TestAScriptReadingTheScriptsFolderIsNotNotedAndAMisspellingIs(t *testing.T) {
	t.Parallel()
	doc, err := Parse("jd.yaml", []byte("project: jd\ntasks:\n  - {name: bean, script: 'node \"$QL_SCRIPTS_DIR/jd_bean.js\"'}\n  - {name: typo, script: 'cd $QL_SCRIPT_DIR'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range Notes(doc, NoteScope{NowMs: 1_790_000_000_000}) {
		for _, it := range n.Items {
			if n.Reason == NoteUnknownQLVariable {
				got = append(got, it["name"]+" "+it["variable"]+" "+it["closest"])
			}
		}
	}
	if strings.Join(got, "\n") != "typo QL_SCRIPT_DIR QL_SCRIPTS_DIR" {
		t.Errorf("noted: %q; want only the misspelling, pointed to QL_SCRIPTS_DIR", got)
	}
}
