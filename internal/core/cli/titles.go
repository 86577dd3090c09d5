package cli

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/view"
)

// titlesLine is the display titles of a trigger, its task and its
// project as `triggers show` prints them on a line of their own (the
// trigger's first, then its task's and project's in brackets); "" when
// none has one. A title is one line without control characters
// (validate.Title), so it is printed as it is.
func titlesLine(t view.Trigger) string {
	var of []string
	if t.TaskTitle != "" {
		of = append(of, "task "+t.TaskTitle)
	}
	if t.ProjectTitle != "" {
		of = append(of, "project "+t.ProjectTitle)
	}
	line := t.Title
	if t.Title == "" {
		line = "-"
	}
	if len(of) == 0 {
		if t.Title == "" {
			return ""
		}
		return line
	}
	return line + "  (" + strings.Join(of, ", ") + ")"
}
