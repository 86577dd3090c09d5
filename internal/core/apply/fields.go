package apply

import (
	"reflect"
	"unicode"
	"unicode/utf8"
)

// changedFields names the fields that differ between two values of one
// struct type, nested structs as "outer.inner" (e.g. "command.script",
// "cron.expression"), in declaration order: what a dry run shows an
// operator about an update.
func changedFields(old, cur any) []string {
	var out []string
	walkFields("", reflect.ValueOf(old), reflect.ValueOf(cur), &out)
	return out
}

func walkFields(prefix string, a, b reflect.Value, out *[]string) {
	t := a.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := prefix + lowerFirst(f.Name)
		fa, fb := a.Field(i), b.Field(i)
		if f.Type.Kind() == reflect.Struct {
			walkFields(name+".", fa, fb, out)
			continue
		}
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			*out = append(*out, name)
		}
	}
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
