package apply

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// place is one error a file must be refused for: at line and column
// (0: not known), saying want.
type place struct {
	line, column int
	want         string
}

// requireErrors fails unless err lists exactly the errors of want, in that
// order, each at its place, and counts more past them.
func requireErrors(t *testing.T, err error, more int, want ...place) {
	t.Helper()
	list, gotMore := Errors(err)
	if len(list) != len(want) || gotMore != more {
		t.Fatalf("%d errors and %d more, want %d and %d:\n%v", len(list), gotMore, len(want), more, err)
	}
	for i, w := range want {
		le := list[i]
		if le.Line != w.line || le.Column != w.column || !strings.Contains(le.Detail, w.want) {
			t.Errorf("error %d at %d:%d %q; want at %d:%d saying %q", i+1, le.Line, le.Column, le.Detail, w.line, w.column, w.want)
		}
	}
}

// manyMistakes is a file with seven mistakes that do not depend on each
// other, two of them in one trigger (its expression and its zone).
const manyMistakes = `project: demo
tasks:
  - name: a
    script: echo
  - name: b
    script: echo
    timeout: soon
  - name: a
    script: echo
triggers:
  - name: t1
    task: a
    cron: '61 * * * *'
    timezone: UTC
  - name: t2
    task: nope
    cron: '0 * * * *'
    timezone: UTC
  - name: t3
    task: a
    cron: '0 3 * * 7'
    timezone: Mars/Olympus
  - name: t1
    task: b
    cron: '0 * * * *'
    timezone: UTC
    colour: red
`

// Every independent mistake of a file is reported at once, each at its own
// line (and column, where it is a field's), in file order and in the words
// it is reported in alone: a file of many mistakes is fixed in one pass,
// not one run per mistake.
func TestEveryIndependentErrorOfAFileIsReportedAtItsLineInFileOrder(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte(manyMistakes))
	requireErrors(t, err, 0,
		place{7, 14, `task.timeout: "soon" is not a duration from 1ms to 365d`},
		place{8, 0, `task "a" is defined twice`},
		place{13, 11, `trigger.cron: cron expression "61 * * * *"`},
		place{15, 0, `trigger "t2": trigger.task "nope" is not a task of this file`},
		place{21, 11, `trigger.cron: cron expression "0 3 * * 7"`},
		place{22, 15, `trigger.timezone: cron timezone "Mars/Olympus": unknown IANA timezone`},
		place{23, 0, `trigger "t1" is defined twice`},
		place{27, 5, `trigger: unknown field "colour"`},
	)
	// A caller reading one error reads the first, with its code and reason.
	if line, _, _, _ := Locate(err); line != 7 || !qlerror.Is(err, qlerror.Invalid) || qlerror.ReasonOf(err) != validate.RefusalNotDuration {
		t.Errorf("the first error: line %d, code %s, reason %s; want line 7, invalid, %s", line, qlerror.CodeOf(err), qlerror.ReasonOf(err), validate.RefusalNotDuration)
	}
	text := err.Error()
	for _, w := range []string{"x.yaml:7:14: task \"b\": task.timeout", "\nx.yaml:8: task \"a\" is defined twice\n", "\nx.yaml:22:15: trigger \"t3\": trigger.timezone", "\nx.yaml: 8 errors; nothing was applied"} {
		if !strings.Contains(text, w) {
			t.Errorf("the text of the errors lacks %q:\n%s", w, text)
		}
	}
	if !strings.HasSuffix(text, "x.yaml: 8 errors; nothing was applied") {
		t.Errorf("the text of the errors does not end with their count:\n%s", text)
	}
}

// A task's name is checked beside its fields, as a trigger's is: a task
// whose timeout is also wrong, or that also lacks a name, is not fixed in
// two passes, the name coming up only once the rest is right.
func TestATasksNameIsReportedWithTheTasksOtherErrors(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte("project: demo\ntasks:\n  - name: Bad Name\n    script: echo\n    timeout: soon\n"+
		"  - script: echo\n    command: [/bin/true]\n"))
	requireErrors(t, err, 0,
		place{3, 5, `task "Bad Name": task.name: "Bad Name" must use lower-case letters`},
		place{5, 14, `task.timeout: "soon" is not a duration`},
		place{6, 5, `task "": task.name: is required`},
		place{7, 14, "give either command (argv mode) or shell + script (shell mode), not both"},
	)
}

// A trigger's invalid name is placed as a task's is, at its entry's line
// and column, so an editor jumps to it from either.
func TestATriggersInvalidNameIsPlacedAsATasksIs(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte("project: demo\ntasks:\n  - name: Bad Name\n    script: echo\n"+
		"triggers:\n  - name: Bad Trigger\n    task: Bad Name\n    cron: '0 * * * *'\n    timezone: UTC\n"))
	requireErrors(t, err, 0,
		place{3, 5, `task "Bad Name": task.name: "Bad Name" must use lower-case letters`},
		place{6, 5, `trigger "Bad Trigger": trigger.name: "Bad Trigger" must use lower-case letters`},
	)
}

// Past MaxErrors the errors are counted, not listed: the first ones in
// file order are, and a line says how many more there are.
func TestErrorsPastTheCapAreCountedNotListed(t *testing.T) {
	t.Parallel()
	var s strings.Builder
	s.WriteString("project: demo\ntasks:\n  - name: a\n    script: echo\ntriggers:\n")
	const n = MaxErrors + 12
	const entry = "  - {name: t%03d, task: a, cron: '61 * * * *', timezone: UTC}\n"
	for i := range n {
		fmt.Fprintf(&s, entry, i)
	}
	_, err := Parse("x.yaml", []byte(s.String()))
	want := make([]place, MaxErrors)
	for i := range want {
		want[i] = place{6 + i, strings.Index(fmt.Sprintf(entry, i), "'61") + 1, "trigger.cron"}
	}
	requireErrors(t, err, 12, want...)
	fe := err.(*FileErrors)
	lines := fe.Lines()
	if len(lines) != MaxErrors+1 || lines[MaxErrors] != "and 12 more errors, listed once those above are fixed" {
		t.Errorf("the last of %d lines %q; want %d lines, the last counting 12 more errors", len(lines), lines[len(lines)-1], MaxErrors+1)
	}
	if got := fe.Summary(); got != fmt.Sprintf("x.yaml: %d errors; nothing was applied", n) {
		t.Errorf("summary %q, want %d errors", got, n)
	}
}

// An error that makes the rest of the file meaningless is reported alone:
// the mistakes the rest would seem to have are only its consequence.
func TestAnErrorThatMakesTheRestMeaninglessIsReportedAlone(t *testing.T) {
	t.Parallel()
	badCron := "triggers:\n  - name: t\n    task: a\n    cron: '61 * * * *'\n    timezone: Mars/Olympus\n"
	cases := []struct {
		name, yaml string
		want       []place
	}{
		{"a YAML syntax error", "project: Bad Name\n" + badCron + "  - name: u\n   task: a\n",
			[]place{{8, 0, "did not find expected '-' indicator"}}},
		{"a top level that is a list", "- project: demo\n- tasks: []\n", []place{{1, 1, "file must be a mapping"}}},
		{"tasks that are no list", "project: Bad Name\ntasks: {a: b}\n" + badCron, []place{{2, 8, "tasks must be a list"}}},
		{"triggers that are no list", "project: Bad Name\ntasks:\n  - {name: a, script: echo, timeout: soon}\ntriggers: t\n", []place{{4, 11, "triggers must be a list"}}},
		{"a second document", "project: Bad Name\n" + badCron + "---\nproject: other\n", []place{{8, 1, "a second YAML document"}}},
		// Every anchor is reported, and nothing of what they would mean.
		{"anchors", "project: Bad Name\nx: &one 1\ny: &two 2\n" + badCron, []place{{2, 4, "(&one)"}, {3, 4, "(&two)"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(c.yaml))
			requireErrors(t, err, 0, c.want...)
		})
	}
}

// A key that is not a field of its mapping is reported, and the field it
// most likely misspells is not reported missing as well.
func TestAMisspeltFieldIsNotAlsoReportedMissing(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		yaml string
		want place
	}{
		"a trigger's timezone": {"project: demo\ntasks:\n  - {name: a, script: echo}\ntriggers:\n  - name: t\n    task: a\n    cron: '0 * * * *'\n    timezon: UTC\n",
			place{8, 5, `unknown field "timezon"`}},
		"a task's script":      {"project: demo\ntasks:\n  - name: a\n    scirpt: echo\n", place{4, 5, `unknown field "scirpt"`}},
		"the project":          {"projcet: demo\n", place{1, 1, `unknown field "projcet"`}},
		"a retry's attempts":   {"project: demo\ntasks:\n  - name: a\n    script: echo\n    retry: {maxAttempt: 3}\n", place{5, 13, `unknown field "maxAttempt"`}},
		"a secret's reference": {"project: demo\ntasks:\n  - name: a\n    script: echo\n    env: {A: {secrte: s}}\n", place{5, 15, `unknown field "secrte"`}},
		"the channels a rule names": {"project: demo\nnotifications:\n  chanels: {ops: {type: webhook, url: 'https://hooks.example/x'}}\n  rules: [{on: failed, channel: ops}]\n",
			place{3, 3, `unknown field "chanels"`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(c.yaml))
			requireErrors(t, err, 0, c.want)
		})
	}
}

// An entry that could not be read whole is not reported again by what
// other entries say of it: a trigger is not said to name a missing task
// while a task's name is unreadable or empty, nor to run a disabled task
// whose entry has an error of its own, nor a rule to name an undefined
// channel whose definition has one.
func TestAnEntrysErrorIsNotReportedAgainByTheChecksOfOthers(t *testing.T) {
	t.Parallel()
	trigger := "triggers:\n  - name: t\n    task: a\n    cron: '0 * * * *'\n    timezone: UTC\n"
	cases := map[string]struct {
		yaml string
		want place
	}{
		"a task's name unreadable": {"project: demo\ntasks:\n  - name: [a]\n    script: echo\n" + trigger, place{3, 11, "task.name must be a string"}},
		"a task not a mapping":     {"project: demo\ntasks:\n  - a\n" + trigger, place{3, 5, "task must be a mapping"}},
		"a task of no name":        {"project: demo\ntasks:\n  - {name: '', script: echo}\n" + trigger, place{3, 5, `task "": task.name: is required`}},
		"a disabled task's error": {"project: demo\ntasks:\n  - name: a\n    script: echo\n    enabled: false\n    timeout: soon\n" + trigger,
			place{6, 14, "task.timeout"}},
		"a trigger's task unreadable": {"project: demo\ntasks:\n  - {name: a, script: echo}\n" + strings.Replace(trigger, "task: a", "task: {name: b}", 1),
			place{6, 11, "trigger.task must be a string"}},
		"a channel's error": {"project: demo\nnotifications:\n  channels: {ops: {type: pager, url: 'https://hooks.example/x'}}\n  rules: [{on: failed, channel: ops}]\n",
			place{3, 19, `notifications.channels.ops.type: "pager" is not one of`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(c.yaml))
			requireErrors(t, err, 0, c.want)
		})
	}
}

// Check, which validates against a clock, reports every trigger it
// refuses, not the first.
func TestCheckReportsEveryTriggerItRefuses(t *testing.T) {
	t.Parallel()
	never := "project: demo\ntasks:\n  - {name: a, script: echo}\ntriggers:\n" +
		"  - {name: t, task: a, cron: '0 0 30 2 *', timezone: UTC}\n  - {name: u, task: a, cron: '0 * * * *', timezone: UTC}\n" +
		"  - {name: v, task: a, cron: '0 0 31 4 *', timezone: UTC}\n"
	doc, err := Parse("x.yaml", []byte(never))
	if err != nil {
		t.Fatal(err)
	}
	requireErrors(t, Check(doc, nowMs), 0,
		place{5, 0, `trigger "t": trigger.cron.expression: "0 0 30 2 *" has no occurrence`},
		place{7, 0, `trigger "v": trigger.cron.expression: "0 0 31 4 *" has no occurrence`})
}
