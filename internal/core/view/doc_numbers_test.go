package view

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// Every bound or window of the product an answer field's description
// states as a number is the value of the constant that sets it: a change
// of the constant fails here until the description says the new value,
// so the API's description never states a bound the server no longer
// keeps. Each entry names the field, the words that state the number (%d
// standing for it) and the constant.
func TestEveryNumberAnAnswerDescriptionStatesIsItsConstantsValue(t *testing.T) {
	for _, c := range []struct {
		of    any
		field string
		says  string
		value int
	}{
		{RunDetail{}, "RerunAs", "at most %d;", run.MaxRerunAs},
		{Waiting{}, "WorkerLabels", "at most %d,", run.MaxWaitingLabelSets},
		{Waiting{}, "Holders", "at most %d;", run.MaxSlotHolders},
		{Warning{}, "Count", "(%d means at least as many)", run.BacklogCountCap},
		{Warning{}, "Count", "the newest %d cancelled", run.StarvingWindow},
		{ProjectList{}, "Projects", "at most %d.", ProjectListLimit},
	} {
		typ := reflect.TypeOf(c.of)
		f, ok := typ.FieldByName(c.field)
		if !ok {
			t.Errorf("view.%s has no field %s", typ.Name(), c.field)
			continue
		}
		if doc, want := f.Tag.Get("doc"), fmt.Sprintf(c.says, c.value); !strings.Contains(doc, want) {
			t.Errorf("the description of view.%s.%s does not say %q, its constant's value now: %q", typ.Name(), c.field, want, doc)
		}
	}
}
