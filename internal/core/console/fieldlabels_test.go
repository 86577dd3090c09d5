package console

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// specFields are the names a definitions preview gives the fields of t, a
// spec's type, as apply names a changed one: nested structs as
// "outer.inner", each part's first letter lower-case.
func specFields(prefix string, t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := prefix + string(unicode.ToLower(rune(f.Name[0]))) + f.Name[1:]
		if f.Type.Kind() == reflect.Struct {
			out = append(out, specFields(name+".", f.Type)...)
			continue
		}
		out = append(out, name)
	}
	return out
}

// Every field of a task or a trigger a definitions preview can say an
// update changes, and a project's status change, reads in both languages
// in words, not as the field's Go name (command.script is 脚本, status
// active → archived is 状态 活动 → 已归档).
func TestEveryChangedFieldAPreviewListsHasWordsInBothLanguages(t *testing.T) {
	t.Parallel()
	fields := append(specFields("", reflect.TypeFor[task.Spec]()), specFields("", reflect.TypeFor[trigger.Spec]())...)
	fields = append(fields, "title", "taskRevision")
	for _, l := range []string{"en", "zh"} {
		for _, f := range fields {
			if _, ok := fieldLabels[l][f]; !ok {
				t.Errorf("%s has no words for the field %s", l, f)
			}
		}
	}
	for l, want := range map[string]string{"zh": "状态 活动 → 已归档", "en": "status active → archived"} {
		if got := fieldLabel(l, "status active → archived"); got != want {
			t.Errorf("%s: a project archived reads %q, want %q", l, got, want)
		}
	}
	if got := fieldLabel("zh", "command.script"); got != "脚本" || strings.Contains(fieldLabel("zh", "taskRevision"), "Revision") {
		t.Errorf("command.script reads %q in Chinese, want 脚本", got)
	}
}
