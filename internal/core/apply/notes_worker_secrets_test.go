package apply

import (
	"slices"
	"strings"
	"testing"
)

// On a cluster a task's secrets come from the secrets file of whichever
// worker takes its Run: a task that uses secrets and sets no placement
// gets a note naming it, its secrets and what to do (every worker that
// can take it holds them, or placement pins it), in the cluster's own
// words; a pinned task and one without secrets get none, and a profile
// that runs every Run on its own machine (ql-edge's too) gets no such
// note, nor any note naming workers.
func TestATaskUsingSecretsWithoutPlacementGetsTheWorkersNoteOnlyOnACluster(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(`project: demo
tasks:
  - {name: deploy, script: echo, env: {TOKEN: {secret: api-token}, DB: {secret: db-pass}, AGAIN: {secret: api-token}}}
  - {name: pinned, script: echo, env: {TOKEN: {secret: api-token}}, placement: {labels: {vault: "yes"}}}
  - {name: plain, script: echo}
`))
	if err != nil {
		t.Fatal(err)
	}
	var worker *Note
	for _, n := range Notes(doc, NoteScope{OnWorkers: true, NowMs: 1_780_000_000_000}) {
		if n.Reason == NoteWorkerSecrets {
			worker = &n
		}
	}
	if worker == nil {
		t.Fatal("a cluster's notes have none about the task using secrets without placement")
	}
	s := worker.String()
	for _, want := range []string{"(tasks: deploy (secrets: api-token, db-pass))", "secret_unavailable", SetWorkerSecretCommand, "placement.labels", "--labels"} {
		if !strings.Contains(s, want) {
			t.Errorf("the note %q does not say %q", s, want)
		}
	}
	for _, scope := range []NoteScope{{RunsHere: true}, {RunsHere: true, MissingSecrets: func([]string) ([]string, error) { return nil, nil }}} {
		for _, n := range Notes(doc, scope) {
			if n.Reason == NoteWorkerSecrets || strings.Contains(n.String(), "worker") {
				t.Errorf("a single-node profile's note %q names workers", n.String())
			}
		}
	}
	if !slices.ContainsFunc(Notes(doc, NoteScope{RunsHere: true}), func(n Note) bool { return n.Reason == NotePlacementIgnored }) {
		t.Error("the single-node scope gave no placement note: the scope under test is not a single node's")
	}
}
