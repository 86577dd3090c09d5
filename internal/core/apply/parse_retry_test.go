package apply

import (
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/task"
)

func TestParseReadsRetryAndPlacement(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(`project: demo
tasks:
  - name: full
    script: echo
    retry: {maxAttempts: 3, backoff: 10s, on: [timed_out, lost, failed]}
    placement: {labels: {region: eu-west, gpu: "true"}}
  - name: default-on
    script: echo
    retry:
      maxAttempts: 2
  - name: once
    script: echo
    retry: {maxAttempts: 1, backoff: 1m, on: [failed]}
  - name: plain
    script: echo
`))
	if err != nil {
		t.Fatal(err)
	}
	full, def, once, plain := doc.Tasks[0].Spec.Command, doc.Tasks[1].Spec.Command, doc.Tasks[2].Spec.Command, doc.Tasks[3].Spec.Command
	want := task.RetryPolicy{MaxAttempts: 3, BackoffMs: 10_000, On: []string{"timed_out", "lost", "failed"}}
	if !reflect.DeepEqual(full.Retry, want) || !reflect.DeepEqual(full.Placement.Labels, map[string]string{"region": "eu-west", "gpu": "true"}) {
		t.Fatalf("full: retry %+v placement %+v", full.Retry, full.Placement)
	}
	if !reflect.DeepEqual(def.Retry, task.RetryPolicy{MaxAttempts: 2, On: []string{task.RetryOnLost}}) {
		t.Fatalf("retry without on reads as %+v; want on: [lost] and no backoff", def.Retry)
	}
	if !once.Retry.IsZero() {
		t.Fatalf("maxAttempts 1 reads as %+v; want no retry", once.Retry)
	}
	if !plain.Retry.IsZero() || !plain.Placement.IsZero() {
		t.Fatalf("a task without retry and placement reads as %+v, %+v; want no retry, any worker", plain.Retry, plain.Placement)
	}
	onceSpec, plainSpec := doc.Tasks[2].Spec, doc.Tasks[3].Spec
	onceSpec.Name = plainSpec.Name
	if task.ContentDigest("p", "t", onceSpec) != task.ContentDigest("p", "t", plainSpec) {
		t.Fatal("maxAttempts 1 digests differently from no retry")
	}
}

func TestInvalidRetryAndPlacementNameFileLineAndField(t *testing.T) {
	t.Parallel()
	base := "project: demo\ntasks:\n  - name: a\n    script: echo\n"
	cases := map[string]struct{ yaml, want string }{
		"retry not a mapping":     {"    retry: 3\n", "x.yaml:5: task \"a\": task.retry must be a mapping"},
		"retry unknown field":     {"    retry: {maxAttempts: 2, jitter: 1s}\n", `x.yaml:5: task "a": task.retry: unknown field "jitter"`},
		"retry duplicate field":   {"    retry:\n      maxAttempts: 2\n      maxAttempts: 3\n", `x.yaml:7: task "a": task.retry: field "maxAttempts" given twice`},
		"retry no maxAttempts":    {"    retry: {on: [lost]}\n", "x.yaml:5: task \"a\": task.retry.maxAttempts: is required"},
		"maxAttempts zero":        {"    retry:\n      maxAttempts: 0\n", "x.yaml:6: task \"a\": task.retry.maxAttempts: 0 is outside 1 … 100"},
		"maxAttempts too many":    {"    retry: {maxAttempts: 101}\n", "outside 1 … 100"},
		"maxAttempts text":        {"    retry: {maxAttempts: many}\n", "task.retry.maxAttempts: must be a whole number"},
		"maxAttempts float":       {"    retry: {maxAttempts: 2.5}\n", "task.retry.maxAttempts: must be a whole number"},
		"backoff not duration":    {"    retry:\n      maxAttempts: 2\n      backoff: soon\n", `x.yaml:7: task "a": task.retry.backoff: "soon" is not a duration`},
		"backoff too long":        {"    retry: {maxAttempts: 2, backoff: 25h}\n", "25h is out of range: it takes 0s to 24h"},
		"backoff negative":        {"    retry: {maxAttempts: 2, backoff: -1s}\n", "-1s is out of range: it takes 0s to 24h"},
		"backoff sub-millisecond": {"    retry: {maxAttempts: 2, backoff: 1us}\n", "whole milliseconds"},
		"on not a list":           {"    retry: {maxAttempts: 2, on: lost}\n", "task.retry.on: must be a list"},
		"on empty":                {"    retry: {maxAttempts: 2, on: []}\n", "task.retry.on: must be a list"},
		"on bad outcome":          {"    retry:\n      maxAttempts: 2\n      on: [lost, cancelled]\n", `x.yaml:7: task "a": task.retry.on: "cancelled" is not an outcome that can be retried; use failed, lost, timed_out`},
		"on duplicate":            {"    retry: {maxAttempts: 2, on: [lost, lost]}\n", `task.retry.on: "lost" is given twice`},
		"placement not a mapping": {"    placement: eu\n", "x.yaml:5: task \"a\": task.placement must be a mapping"},
		"placement unknown field": {"    placement: {zone: eu}\n", `task.placement: unknown field "zone"`},
		"placement no labels":     {"    placement: {}\n", "task.placement.labels: is required"},
		"placement labels list":   {"    placement: {labels: [eu]}\n", "task.placement.labels must be a mapping"},
		"placement bad key":       {"    placement:\n      labels: {Region: eu}\n", `x.yaml:6: task "a": task.placement.labels: key "Region"`},
		"placement bad value":     {"    placement: {labels: {region: \"eu, us\"}}\n", "task.placement.labels.region"},
		"placement null value":    {"    placement: {labels: {region: null}}\n", "task.placement.labels.region must be a string"},
	}
	for name, c := range cases {
		_, err := Parse("x.yaml", []byte(base+c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}
