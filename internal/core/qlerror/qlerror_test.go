package qlerror

import (
	"fmt"
	"testing"
)

// A reason's params travel with it through wrapping: ParamsOf answers
// those of the error ReasonOf finds, as their values print.
func TestParamsTravelWithTheirReason(t *testing.T) {
	t.Parallel()
	inner := New(Invalid, "task.timeout: %q is not a duration", "soon").Because("not_a_duration", "field", "task.timeout", "value", "soon", "max", 24, "dangling")
	err := fmt.Errorf("apply: %w", Wrap(Invalid, inner, "x.yaml:5"))
	if ReasonOf(err) != "not_a_duration" {
		t.Fatalf("reason %q", ReasonOf(err))
	}
	got := ParamsOf(err)
	if len(got) != 3 || got["field"] != "task.timeout" || got["value"] != "soon" || got["max"] != "24" {
		t.Fatalf("params %v, want field, value and max (a key without a value dropped)", got)
	}
	if ParamsOf(New(Invalid, "no reason")) != nil || ParamsOf(nil) != nil {
		t.Fatal("an error without a reason has params")
	}
}
