package apply

import (
	"regexp"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// NoteUnknownQLVariable is tasks whose script reads a QL_ variable
// QingLong does not set ($QL_ATTEMPT for QL_ATTEMPT_NUMBER), which is
// empty in every Run, since a task's env may not set one either: name
// (the task's), variable (as read, QL_ATTEMPT), closest (the variables it
// sets nearest to it, joined by "/").
const NoteUnknownQLVariable NoteReason = "defs_note_unknown_ql_variable"

// qlVariableRead is a script's read of a QL_ variable: $QL_X or ${QL_X…}.
var qlVariableRead = regexp.MustCompile(`\$\{?(` + task.ReservedEnvPrefix + `[A-Z0-9_]+)`)

// qlVariableSet is a script setting a QL_ variable of its own (QL_X=…,
// for QL_X in, read QL_X), which it may then read.
var qlVariableSet = regexp.MustCompile(`(?:^|[^\w${])(` + task.ReservedEnvPrefix + `[A-Z0-9_]+)=|\b(?:for|read(?:\s+-\S+)*)\s+(` + task.ReservedEnvPrefix + `[A-Z0-9_]+)\b`)

// UnknownQLVariableNote is the note of doc's tasks whose shell script
// reads a QL_ variable that is neither one QingLong sets (run.EnvNames,
// and the scripts folder a single node gives every command) nor one the
// script sets itself: one item per task and variable.
func UnknownQLVariableNote(doc *Document) (Note, bool) {
	known := append(run.EnvNames(), scripts.EnvVar)
	var items []map[string]string
	for _, t := range doc.Tasks {
		if t.Spec.Command.Mode != task.ModeShell {
			continue
		}
		script := t.Spec.Command.Script
		var own, seen []string
		for _, m := range qlVariableSet.FindAllStringSubmatch(script, -1) {
			own = append(own, m[1]+m[2])
		}
		for _, m := range qlVariableRead.FindAllStringSubmatch(script, -1) {
			v := m[1]
			if slices.Contains(known, v) || slices.Contains(own, v) || slices.Contains(seen, v) {
				continue
			}
			seen = append(seen, v)
			items = append(items, map[string]string{"name": t.Spec.Name, "variable": v, "closest": strings.Join(closestQLVariables(v, known), "/")})
		}
	}
	return capped(NoteUnknownQLVariable, items)
}

// closestQLVariables are the names of known nearest to v: those v is the
// start of, or that are the start of v, word by word (QL_ATTEMPT:
// QL_ATTEMPT_ID and QL_ATTEMPT_NUMBER; QL_TRIGGER_NAME: QL_TRIGGER),
// else those fewest letters away (QL_SCHEDULE_AT: QL_SCHEDULED_AT).
func closestQLVariables(v string, known []string) []string {
	var near []string
	for _, k := range known {
		if strings.HasPrefix(k, v+"_") || strings.HasPrefix(v, k+"_") {
			near = append(near, k)
		}
	}
	if len(near) > 0 {
		return near
	}
	best := -1
	for _, k := range known {
		d := validate.EditDistance(v, k)
		switch {
		case best < 0 || d < best:
			best, near = d, []string{k}
		case d == best:
			near = append(near, k)
		}
	}
	return near
}
