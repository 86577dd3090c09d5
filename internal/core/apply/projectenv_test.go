package apply

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// envProjectFile is a definitions file of project shop whose env is the
// lines given, with one task.
func envProjectFile(env string) string {
	return "project: shop\nenv:\n" + env + "tasks:\n  - name: job\n    script: echo\n"
}

// A project's env is read as a task's: each value the text written for
// it, a secret by its name, in name order.
func TestAProjectsEnvIsReadAsATasksEnvIs(t *testing.T) {
	doc, err := Parse("shop.yaml", []byte(envProjectFile("  PORT: 8080\n  DEBUG: true\n  TOKEN: {secret: shop/api-token}\n  EMPTY:\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := []task.EnvVar{{Name: "DEBUG", Value: "true"}, {Name: "EMPTY"}, {Name: "PORT", Value: "8080"}, {Name: "TOKEN", SecretRef: "shop/api-token"}}
	if !slices.Equal(doc.Env, want) {
		t.Fatalf("env read as %+v; want %+v", doc.Env, want)
	}
}

// What a task's env refuses a project's refuses too, with the reason a
// task's gets, the line, and the project's field.
func TestAProjectEnvMistakeIsRefusedNamingItsLineAndField(t *testing.T) {
	for _, c := range []struct {
		env    string
		reason qlerror.Reason
	}{
		{"  QL_RUN_ID: forged\n", task.RefusalEnvReserved},
		{"  1BAD: x\n", task.RefusalEnvName},
		{"  HOSTS: [a, b]\n", RefusalNotString},
		{"  TOKEN: {secret: \"no spaces\"}\n", task.RefusalSecretRef},
		{"  TOKEN: {value: x}\n", RefusalUnknownField},
	} {
		_, err := Parse("shop.yaml", []byte(envProjectFile(c.env)))
		if !hasReason(err, c.reason) || !strings.Contains(err.Error(), "shop.yaml:3") {
			t.Errorf("env %q: %v; want it refused (%s) at shop.yaml:3", c.env, err, c.reason)
		}
		if c.reason != RefusalUnknownField && !strings.Contains(err.Error(), "project.env") {
			t.Errorf("env %q: %v; want the refusal to name project.env", c.env, err)
		}
	}
	if _, err := Parse("shop.yaml", []byte("project: shop\nenv: [A]\n")); !strings.Contains(err.Error(), "project.env must be a mapping") {
		t.Errorf("an env that is a list: %v; want it refused as no mapping", err)
	}
}

// hasReason reports whether err, or one of a file's errors, has reason.
func hasReason(err error, reason qlerror.Reason) bool {
	if qlerror.ReasonOf(err) == reason {
		return true
	}
	var fe *FileErrors
	if !errors.As(err, &fe) {
		return false
	}
	for _, e := range fe.Errors {
		if qlerror.ReasonOf(e) == reason {
			return true
		}
	}
	return false
}

// A task that fits what a task may take of ARG_MAX alone, but not with
// the project's env every task starts with, is refused at its line,
// saying that the project env is part of it.
func TestATaskThatWouldNotStartWithItsProjectsEnvIsRefusedSayingSo(t *testing.T) {
	var env strings.Builder
	for i := range 16 {
		env.WriteString("  V" + string(rune('A'+i)) + ": " + strings.Repeat("v", task.MaxEnvValueLen) + "\n")
	}
	script := strings.Repeat("#", task.MaxScriptLen)
	file := "project: shop\nenv:\n" + env.String() + "tasks:\n  - name: job\n    script: \"" + script + "\"\n"
	_, err := Parse("shop.yaml", []byte(file))
	if !hasReason(err, validate.RefusalTooLong) || !strings.Contains(err.Error(), "with its project's env") ||
		!strings.Contains(err.Error(), "the project env is part of every task's") || !strings.Contains(err.Error(), "shop.yaml:20") {
		t.Fatalf("%.600v; want the task refused at its line, saying its project's env is part of its size", err)
	}
	if _, err := Parse("shop.yaml", []byte("project: shop\ntasks:\n  - name: job\n    script: \""+script+"\"\n")); err != nil {
		t.Fatalf("the same task without the project's env: %v; want it accepted", err)
	}
}

// A secret of the project's env counts as each task's: the apply's notes
// name it among the file's secrets and, for a task without placement,
// among those every worker must hold.
func TestAProjectEnvSecretCountsAsEveryTasksSecret(t *testing.T) {
	doc, err := Parse("shop.yaml", []byte(envProjectFile("  TOKEN: {secret: shop/api-token}\n")))
	if err != nil {
		t.Fatal(err)
	}
	if refs := SecretRefs(doc); !slices.Equal(refs, []string{"shop/api-token"}) {
		t.Fatalf("the file's secrets %v; want the project env's", refs)
	}
	n, ok := WorkerSecretsNote(doc)
	if !ok || len(n.Items) != 1 || n.Items[0]["name"] != "job" || n.Items[0]["secrets"] != "shop/api-token" {
		t.Fatalf("worker secrets note %+v, %v; want task job with the project env's secret", n, ok)
	}
}

// A project's env may not name another project's secret, as a task's may
// not.
func TestAProjectEnvNamingAnotherProjectsSecretIsRefused(t *testing.T) {
	doc, err := Parse("shop.yaml", []byte(envProjectFile("  TOKEN: {secret: bank/api-token}\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSecretProjects(doc); !hasReason(err, task.RefusalSecretOfAnotherProject) || !strings.Contains(err.Error(), "project env TOKEN") {
		t.Fatalf("%v; want the project env's secret of another project refused", err)
	}
}
