package httpapi

import (
	"encoding/json"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/view"
)

// answers are the types the handlers of the main reads and of run now
// encode their answers from, by "METHOD pattern": the description's
// schemas of those answers are read from these very types, so a field
// added to one is described as it is answered.
var answers = map[string]any{
	"GET /api/v1/runs":               view.RunList{},
	"GET /api/v1/runs/{id}":          view.RunDetail{},
	"GET /api/v1/triggers":           view.TriggerList{},
	"GET /api/v1/projects":           view.ProjectList{},
	"POST /api/v1/triggers/{id}/run": runNowView{},
}

// rawJSON is a field answered as the JSON it holds (an event's payload):
// any JSON value.
var rawJSON = reflect.TypeFor[json.RawMessage]()

// docTag is the struct tag that says, beside an answered field, what it
// means: its unit, when it is absent and which profile gives it. The
// description reads it as the field's description, so that a field added
// without one shows as undescribed in the document a test walks.
const docTag = "doc"

// edgeDocTag says, beside a doc tag that speaks of the cluster, the same
// of the field in the words of the edge binary's description, which names
// nothing of the cluster: what the field is on a server without workers.
const edgeDocTag = "edgedoc"

// clusterOnly starts the doc tag of a field only the cluster gives; the
// edge binary's description leaves such a field out, as its answers do.
const clusterOnly = "Cluster only"

// answerSchemas describes the answers' types as JSON Schema components,
// one a struct type, each answered field a property: described by its doc
// tag, required unless its json tag says omitempty or omitzero (a field
// one profile leaves out), and null allowed where a pointer without
// either encodes nil as null.
type answerSchemas struct {
	components map[string]any
	names      map[reflect.Type]string
	// edge: the schemas are the edge binary's, without the fields only the
	// cluster gives and in its words (edgeDocTag).
	edge bool
}

// refOf is a reference to the component of struct type t, described
// first where it is not yet.
func (s *answerSchemas) refOf(t reflect.Type) map[string]any {
	name, ok := s.names[t]
	if !ok {
		name = upperFirst(t.Name())
		if _, taken := s.components[name]; taken {
			// Two packages' types of one name: the later is named with its
			// package too.
			name = upperFirst(path.Base(t.PkgPath())) + name
		}
		s.names[t] = name
		s.components[name] = map[string]any{} // a type that holds itself refers to its name
		s.components[name] = s.object(t)
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// object is the schema of the JSON object struct type t encodes to.
func (s *answerSchemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for f := range t.Fields() {
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		words := f.Tag.Get(docTag)
		if s.edge {
			if strings.HasPrefix(words, clusterOnly) {
				continue
			}
			if edgeWords := f.Tag.Get(edgeDocTag); edgeWords != "" {
				words = edgeWords
			}
		}
		omitted := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		schema := s.value(f.Type)
		if f.Type.Kind() == reflect.Pointer && !omitted {
			schema = map[string]any{"oneOf": []any{schema, map[string]any{"type": "null"}}}
		}
		if words != "" {
			schema["description"] = words
		}
		props[tag] = schema
		if !omitted {
			required = append(required, tag)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// value is the schema of a value of type t.
func (s *answerSchemas) value(t reflect.Type) map[string]any {
	if t == rawJSON {
		return map[string]any{}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return s.refOf(t)
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": s.value(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": s.value(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	}
	return valueSchema(t)
}

// describeAnswers adds to components the schemas of the answers' types,
// the edge binary's where edge, and returns each answer's schema by
// "METHOD pattern".
func describeAnswers(components map[string]any, edge bool) map[string]map[string]any {
	s := &answerSchemas{components: components, names: map[reflect.Type]string{}, edge: edge}
	out := map[string]map[string]any{}
	// In one order, so that the names a collision gives are the same in
	// every document.
	for _, route := range slices.Sorted(maps.Keys(answers)) {
		out[route] = s.refOf(reflect.TypeOf(answers[route]))
	}
	return out
}

func upperFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
