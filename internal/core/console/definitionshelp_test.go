package console

import (
	"bytes"
	"strings"
	"testing"
)

// The Definitions page's caption under the editor describes a project's
// tasks and triggers only when a project is chosen and shown; with none
// chosen it says so and how to show or create one, in English and Chinese.
func TestTheDefinitionsCaptionDescribesTasksOnlyWhenAProjectIsShown(t *testing.T) {
	tmpl := parseTemplates("ql", "")["definitions"]
	for _, c := range []struct {
		lang, project, want, not string
	}{
		{"en", "", "No project is chosen: choose one above", "tasks and triggers, every one of them"},
		{"en", "examples", "tasks and triggers, every one of them", "No project is chosen"},
		{"zh", "", "尚未选择项目：在上方选择一个项目", "项目的全部任务"},
		{"zh", "examples", "项目的全部任务", "尚未选择项目"},
	} {
		var buf bytes.Buffer
		if err := tmpl.ExecuteTemplate(&buf, "layout", page{Lang: c.lang, Data: definitionsData{CanPublish: true, Project: c.project}}); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s Definitions page with project %q: want %q and not %q in its caption", c.lang, c.project, c.want, c.not)
		}
	}
}
