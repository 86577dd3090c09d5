package console

import "fmt"

// dangerStep is the data of the dangerform template in l: a one-way or
// hard-to-undo action (a trigger's disable, a Run's cancel) whose first
// tap only opens its question, saying what the action does, and whose
// second, the button id, does it. The question is a <details>, which a
// browser opens without scripts, so the action never takes one tap.
//
// kind picks the words (ask.KIND, confirm.KIND naming what, hint.KIND).
// The button posts a form of its own to action, with the session's csrf,
// back (when not "") and the non-empty fields; or, when form is not "",
// sends that form (the triggers list's batch form) with do=action.
func dangerStep(l, csrf, action, id, kind, what, form, back string, fields map[string]string) map[string]any {
	ask := "ask." + kind
	if kind == "batchdisable" {
		ask = "ask.disable"
	}
	confirm := tr(l, "confirm."+kind)
	if what != "" {
		confirm = fmt.Sprintf(confirm, what)
	}
	return map[string]any{"CSRF": csrf, "Action": action, "ID": id, "Ask": tr(l, ask), "Confirm": confirm, "Hint": tr(l, "hint."+kind),
		"Form": form, "Back": back, "Fields": fields}
}
