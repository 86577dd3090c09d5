package task

import (
	"slices"
	"testing"
)

// A command in a project starts with every variable of the project's it
// does not set itself and all of its own, in name order; the command it
// was made from is left as it was.
func TestACommandsOwnVariableWinsOverItsProjectsOfTheSameName(t *testing.T) {
	own := Command{Env: []EnvVar{{Name: "B", Value: "own"}, {Name: "D", SecretRef: "d-token"}}}
	got := own.WithProjectEnv([]EnvVar{{Name: "A", Value: "project"}, {Name: "B", Value: "project"}, {Name: "C", SecretRef: "c-token"}})
	want := []EnvVar{{Name: "A", Value: "project"}, {Name: "B", Value: "own"}, {Name: "C", SecretRef: "c-token"}, {Name: "D", SecretRef: "d-token"}}
	if !slices.Equal(got.Env, want) {
		t.Fatalf("env %+v; want %+v", got.Env, want)
	}
	if len(own.Env) != 2 || own.Env[0].Value != "own" {
		t.Fatalf("the task's own command was changed: %+v", own.Env)
	}
}

// A project's env is stored as secret names and values, and read back as
// it was; a stored form this build does not know is refused, not half
// read.
func TestAProjectsStoredEnvReadsBackAsItWasAndAnUnknownFormIsRefused(t *testing.T) {
	env := []EnvVar{{Name: "B", Value: "<a&b>"}, {Name: "A", SecretRef: "shop/token"}}
	s, err := EncodeEnv(env)
	if err != nil || s != `[{"name":"A","secretRef":"shop/token"},{"name":"B","value":"<a&b>"}]` {
		t.Fatalf("stored as %q, %v", s, err)
	}
	back, err := DecodeEnv(s)
	if err != nil || !slices.Equal(back, []EnvVar{env[1], env[0]}) {
		t.Fatalf("read back %+v, %v", back, err)
	}
	for _, bad := range []string{`[{"name":"A","secret":"x"}]`, `[] []`, `{}`} {
		if _, err := DecodeEnv(bad); err == nil {
			t.Errorf("stored env %s read without an error", bad)
		}
	}
}
