package apply

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A file written of a project or a task without an env leaves env out,
// rather than writing env: {}, which an export would show to no purpose;
// the Edit environment form's rows are written in the order sent.
func TestAFileOfNoEnvLeavesEnvOut(t *testing.T) {
	d := statusOnly(project.Project{Name: "shop", Status: project.Active})
	d.Tasks = []exportTask{exportTaskSpec(task.Spec{Name: "job", Enabled: true, Command: task.Command{Mode: task.ModeShell, Script: "true"}})}
	text, err := encodeExport(d)
	if err != nil || strings.Contains(string(text), "env") {
		t.Fatalf("%v; want no env in:\n%s", err, text)
	}
	d.Env = envYAML([]EnvRow{{Name: "B", Value: "1"}, {Name: "A", Secret: "shop/a", UsesSecret: true}})
	if text, err = encodeExport(d); err != nil || !strings.Contains(string(text), "env:\n  B: \"1\"\n  A: {secret: shop/a}\n") {
		t.Fatalf("%v; want the rows in their order:\n%s", err, text)
	}
}
