package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// conforms lists how v, a decoded JSON answer at path at, departs from
// schema, a schema of doc's: a type it is not of, a required field it
// lacks, and a field the schema does not describe (the schemas are read
// from the types answered, so every field must be in them).
func conforms(doc map[string]any, schema map[string]any, v any, at string) []string {
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		target, ok := doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
		if !ok {
			return []string{at + ": $ref " + ref + " names no schema"}
		}
		return conforms(doc, target, v, at)
	}
	if branches, ok := schema["oneOf"].([]any); ok {
		var all []string
		for _, b := range branches {
			errs := conforms(doc, b.(map[string]any), v, at)
			if len(errs) == 0 {
				return nil
			}
			all = append(all, errs...)
		}
		return append([]string{at + ": matches no branch of oneOf"}, all...)
	}
	switch schema["type"] {
	case nil:
		return nil
	case "null":
		if v != nil {
			return []string{fmt.Sprintf("%s: %v is not null", at, v)}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return []string{fmt.Sprintf("%s: %v is not a string", at, v)}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: %v is not a boolean", at, v)}
		}
	case "integer":
		if n, ok := v.(float64); !ok || n != float64(int64(n)) {
			return []string{fmt.Sprintf("%s: %v is not an integer", at, v)}
		}
	case "number":
		if _, ok := v.(float64); !ok {
			return []string{fmt.Sprintf("%s: %v is not a number", at, v)}
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an array", at, v)}
		}
		var errs []string
		for i, item := range list {
			errs = append(errs, conforms(doc, schema["items"].(map[string]any), item, fmt.Sprintf("%s[%d]", at, i))...)
		}
		return errs
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an object", at, v)}
		}
		var errs []string
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if _, ok := obj[r.(string)]; !ok {
					errs = append(errs, at+": lacks required "+r.(string))
				}
			}
		}
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			switch p, ok := props[k].(map[string]any); {
			case ok:
				errs = append(errs, conforms(doc, p, obj[k], at+"."+k)...)
			case extra != nil:
				errs = append(errs, conforms(doc, extra, obj[k], at+"."+k)...)
			default:
				errs = append(errs, at+"."+k+": answered, and not in the schema")
			}
		}
		return errs
	default:
		return []string{fmt.Sprintf("%s: the schema's type %v is none the check knows", at, schema["type"])}
	}
	return nil
}

// The OpenAPI description gives the answers of the main reads and of run
// now a schema read from the types the handlers encode, and real answers
// of a server on the embedded database conform to it: a run now's, the
// Run listing's and a Run's, the trigger and project listings', every
// field answered described with its type, none required missing.
func TestTheMainReadsAnswerAsTheirOpenAPISchemasSay(t *testing.T) {
	t.Parallel()
	h, tokens, trig, _ := onePublishedTrigger(t)
	operate, read := tokens[apitoken.Operate], tokens[apitoken.Read]
	var doc map[string]any
	if a := request(t, h, "GET", openAPIPath, read, ""); a.status != 200 || json.Unmarshal([]byte(a.raw), &doc) != nil {
		t.Fatalf("GET %s: %d %s", openAPIPath, a.status, a.raw)
	}
	ran := request(t, h, "POST", "/api/v1/triggers/"+trig+"/run", operate, `{"requestId":"schema-1"}`)
	var started struct {
		RunID string `json:"runId"`
	}
	if ran.status != 200 || json.Unmarshal([]byte(ran.raw), &started) != nil || started.RunID == "" {
		t.Fatalf("run now: %d %s", ran.status, ran.raw)
	}
	for _, c := range []struct{ method, pattern, target string }{
		{"post", "/api/v1/triggers/{id}/run", ""},
		{"get", "/api/v1/runs", "/api/v1/runs"},
		{"get", "/api/v1/runs/{id}", "/api/v1/runs/" + started.RunID},
		{"get", "/api/v1/triggers", "/api/v1/triggers"},
		{"get", "/api/v1/projects", "/api/v1/projects"},
	} {
		a := ran
		if c.target != "" {
			a = request(t, h, "GET", c.target, read, "")
		}
		var answer any
		if a.status != 200 || json.Unmarshal([]byte(a.raw), &answer) != nil {
			t.Fatalf("%s %s: %d %s", c.method, c.pattern, a.status, a.raw)
		}
		op, _ := doc["paths"].(map[string]any)[c.pattern].(map[string]any)[c.method].(map[string]any)
		schema, ok := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		if !ok {
			t.Errorf("%s %s: the description gives its answer no schema", c.method, c.pattern)
			continue
		}
		if errs := conforms(doc, schema, answer, "answer"); len(errs) > 0 {
			t.Errorf("%s %s answered %s\nwhich departs from its schema:\n%s", c.method, c.pattern, a.raw, strings.Join(errs, "\n"))
		}
	}
}
