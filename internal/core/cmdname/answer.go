package cmdname

import "reflect"

// Tag marks a string field of an answer whose words the server built and
// whose commands it names as ql's (a queued Run's reason, a trigger's
// overlap warning, an apply's note): `cmdname:"said"`. A field not so
// marked is the user's data (a task's script, a trigger's name) and is
// never renamed, whatever it holds.
const Tag = "cmdname"

// said is the value of Tag on a field InAnswer renames.
const said = "said"

// InAnswer is v, an answer about to be encoded (a struct, a pointer, a
// slice or a map of them), with the commands of every field tagged
// `cmdname:"said"` named as binary names them (As); v itself where
// nothing changes. What v refers to is never written: a part holding a
// renamed field is copied, so a value a cache or another reader shares
// keeps ql's words.
func InAnswer(binary string, v any) any {
	if binary == "" || binary == "ql" || v == nil {
		return v
	}
	out, changed := renamed(binary, reflect.ValueOf(v))
	if !changed {
		return v
	}
	return out.Interface()
}

// renamed is v with its tagged fields renamed, and whether any changed.
func renamed(binary string, v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, ok := renamed(binary, v.Elem())
		if !ok {
			return v, false
		}
		if v.Kind() == reflect.Pointer {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(e)
			return p, true
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(e)
		return out, true
	case reflect.Slice, reflect.Array:
		if !holds(v.Type().Elem()) {
			return v, false
		}
		var out reflect.Value
		for i := range v.Len() {
			e, ok := renamed(binary, v.Index(i))
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = copied(v)
			}
			out.Index(i).Set(e)
		}
		return out, out.IsValid()
	case reflect.Map:
		var out reflect.Value
		for it := v.MapRange(); it.Next(); {
			e, ok := renamed(binary, it.Value())
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				for all := v.MapRange(); all.Next(); {
					out.SetMapIndex(all.Key(), all.Value())
				}
			}
			out.SetMapIndex(it.Key(), e)
		}
		return out, out.IsValid()
	case reflect.Struct:
		var out reflect.Value
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			e, ok := renamedField(binary, f, v.Field(i))
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = copied(v)
			}
			out.Field(i).Set(e)
		}
		return out, out.IsValid()
	}
	return v, false
}

// renamedField is field f's value v renamed: its words when f is tagged
// said, else what it holds.
func renamedField(binary string, f reflect.StructField, v reflect.Value) (reflect.Value, bool) {
	if f.Tag.Get(Tag) != said || v.Kind() != reflect.String {
		return renamed(binary, v)
	}
	s := As(binary, v.String())
	if s == v.String() {
		return v, false
	}
	return reflect.ValueOf(s).Convert(f.Type), true
}

// holds reports whether a value of type t can hold a tagged field: a
// slice of bytes (an attempt's output) or of ids is not walked.
func holds(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
		return true
	}
	return false
}

// copied is a settable copy of v, a slice (its elements copied into a new
// backing array), an array or a struct.
func copied(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Slice {
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(out, v)
		return out
	}
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	return out
}
