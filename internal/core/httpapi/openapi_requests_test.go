package httpapi

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// requestFields calls field with every property of every JSON request
// body doc describes, by "METHOD path field".
func requestFields(doc map[string]any, field func(at string, schema map[string]any)) {
	paths, _ := doc["paths"].(map[string]any)
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		ops := paths[path].(map[string]any)
		for _, method := range slices.Sorted(maps.Keys(ops)) {
			body, _ := ops[method].(map[string]any)["requestBody"].(map[string]any)
			content, _ := body["content"].(map[string]any)
			for _, media := range slices.Sorted(maps.Keys(content)) {
				schema, _ := content[media].(map[string]any)["schema"].(map[string]any)
				props, _ := schema["properties"].(map[string]any)
				for _, name := range slices.Sorted(maps.Keys(props)) {
					field(strings.ToUpper(method)+" "+path+" "+name, props[name].(map[string]any))
				}
			}
		}
	}
}

// Every field of every JSON request body the OpenAPI description gives
// (run now's, a re-run's, a pause's, a backfill's, a secret's, the
// dependencies' and their mirrors') has a description: a field added to a
// body's type without a doc tag fails here.
func TestEveryRequestBodyFieldOfTheOpenAPIDocumentHasADescription(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{})
	doc := servedDocument(t, h, tokens[apitoken.Read])
	fields := 0
	requestFields(doc, func(at string, schema map[string]any) {
		fields++
		if words, _ := schema["description"].(string); strings.TrimSpace(words) == "" {
			t.Errorf("%s has no description: give its field a doc tag saying what it is, its unit, its default and bounds, and which profile alone takes it", at)
		}
	})
	// requestId and force, requestId, note (four routes), fromMs, toMs,
	// max and dryRun, value, kind, packages and name (three routes), kind,
	// registry and proxy.
	if least := 2 + 1 + 4 + 4 + 1 + 3*3 + 3; fields < least {
		t.Errorf("the walk found %d request body fields; the bodies have at least %d, so it missed some", fields, least)
	}
}

// Every bound or default a request body field's description states as a
// number is the value of the constant the server checks it with, and the
// kinds a dependencies field names are the kinds the server takes: a change
// of either fails here until the description says it.
func TestEveryNumberARequestBodyDescriptionStatesIsItsConstantsValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		of    any
		field string
		says  string
		value int
	}{
		{runNowBody{}, "RequestID", "1–%d letters", schedule.MaxRequestIDLen},
		{RerunBody{}, "RequestID", "1–%d letters", schedule.MaxRequestIDLen},
		{pauseBody{}, "Note", "at most %d characters", schedule.MaxPauseNote},
		{backfillBody{}, "Max", "from 1 to %d", schedule.MaxBackfill},
		{backfillBody{}, "Max", "left out, %d.", schedule.DefaultBackfillMax},
		{secretSetBody{}, "Value", "from %d to", process.MinSecretLen},
		{secretSetBody{}, "Value", "to %d bytes", process.MaxSecretLen},
		{depsBody{}, "Packages", "from 1 to %d", deps.MaxNames},
		{depsBody{}, "Packages", "at most %d characters", deps.MaxSpec},
		{mirrorBody{}, "Registry", "at most %d characters", deps.MaxMirrorURL},
		{mirrorBody{}, "Proxy", "at most %d characters", deps.MaxMirrorURL},
	} {
		if doc, want := docOf(t, c.of, c.field), fmt.Sprintf(c.says, c.value); !strings.Contains(doc, want) {
			t.Errorf("the description of %T.%s does not say %q, its constant's value now: %q", c.of, c.field, want, doc)
		}
	}
	for _, c := range []struct {
		of    any
		kinds []deps.Kind
	}{{depsBody{}, deps.Kinds}, {mirrorBody{}, deps.MirrorKinds}} {
		doc := docOf(t, c.of, "Kind")
		for _, k := range c.kinds {
			if !strings.Contains(doc, string(k)) {
				t.Errorf("the description of %T.Kind does not name the kind %s: %q", c.of, k, doc)
			}
		}
	}
}

// docOf is the doc tag of field of v's struct type.
func docOf(t *testing.T, v any, field string) string {
	t.Helper()
	f, ok := reflect.TypeOf(v).FieldByName(field)
	if !ok {
		t.Fatalf("%T has no field %s", v, field)
	}
	return f.Tag.Get(docTag)
}
