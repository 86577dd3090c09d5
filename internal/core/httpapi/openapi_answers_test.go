package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
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
// field answered described with its type, none required missing. So on
// the full binary and on the edge binary, whose description leaves out
// the fields only the cluster gives.
func TestTheMainReadsAnswerAsTheirOpenAPISchemasSay(t *testing.T) {
	t.Parallel()
	for _, binary := range []string{"ql", "ql-edge"} {
		t.Run(binary, func(t *testing.T) {
			t.Parallel()
			mainReadsAnswerAsTheirSchemasSay(t, binary)
		})
	}
}

func mainReadsAnswerAsTheirSchemasSay(t *testing.T, binary string) {
	st, tokens := tokenStore(t)
	trig, _ := publishTrigger(t, st, "hourly", "0 * * * *")
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Manual: st, Export: st, Binary: binary,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
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

// servedDocument is the description h serves, decoded.
func servedDocument(t *testing.T, h http.Handler, token string) map[string]any {
	t.Helper()
	var doc map[string]any
	if a := request(t, h, "GET", openAPIPath, token, ""); a.status != 200 || json.Unmarshal([]byte(a.raw), &doc) != nil {
		t.Fatalf("GET %s: %d %s", openAPIPath, a.status, a.raw)
	}
	return doc
}

// answerFields calls field with every property of every schema an answer
// of doc reaches (a success's or a refusal's, through its references,
// lists, maps and nested objects), by "Schema.field" where the property is
// a component's and "path.field" where it is nested in one, each once.
func answerFields(doc map[string]any, field func(at string, schema map[string]any)) {
	components, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)
	seen := map[string]bool{}
	var walk func(at string, schema map[string]any)
	walk = func(at string, schema map[string]any) {
		if ref, ok := schema["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if target, ok := components[name].(map[string]any); ok && !seen[name] {
				seen[name] = true
				walk(name, target)
			}
		}
		for _, b := range asList(schema["oneOf"]) {
			walk(at, b)
		}
		if items, ok := schema["items"].(map[string]any); ok {
			walk(at+"[]", items)
		}
		if extra, ok := schema["additionalProperties"].(map[string]any); ok {
			walk(at+"{}", extra)
		}
		props, _ := schema["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			p := props[name].(map[string]any)
			field(at+"."+name, p)
			walk(at+"."+name, p)
		}
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		ops := paths[path].(map[string]any)
		for _, method := range slices.Sorted(maps.Keys(ops)) {
			responses, _ := ops[method].(map[string]any)["responses"].(map[string]any)
			for _, status := range slices.Sorted(maps.Keys(responses)) {
				content, _ := responses[status].(map[string]any)["content"].(map[string]any)
				for _, media := range slices.Sorted(maps.Keys(content)) {
					if schema, ok := content[media].(map[string]any)["schema"].(map[string]any); ok {
						walk(strings.ToUpper(method)+" "+path+" "+status, schema)
					}
				}
			}
		}
	}
}

// asList is v's elements that are objects, v a decoded JSON array.
func asList(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// Every field of every answer the OpenAPI description gives a schema to
// (the main reads', run now's and the Error of every refusal), nested ones
// included, has a description: a field added to an answered type without
// one fails here.
func TestEveryAnswerFieldOfTheOpenAPIDocumentHasADescription(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{})
	doc := servedDocument(t, h, tokens[apitoken.Read])
	fields := 0
	answerFields(doc, func(at string, schema map[string]any) {
		fields++
		if words, _ := schema["description"].(string); strings.TrimSpace(words) == "" {
			t.Errorf("%s has no description: give its field a doc tag saying what it is, its unit, when it is absent and which profile alone gives it", at)
		}
	})
	if fields < 100 {
		t.Errorf("the walk found %d answer fields; the answers' schemas have more than 100, so it missed some", fields)
	}
}

// The answer fields only the cluster gives (what names workers, their
// labels, a scheduler's hold on a trigger and a database role's reach)
// start their description with "Cluster only", and those only a
// standalone or edge server gives (its slots, its data directory) with
// "Standalone and edge only"; no other field says either.
func TestTheAnswerFieldsOneProfileAloneGivesSaySoInTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{})
	doc := servedDocument(t, h, tokens[apitoken.Read])
	const cluster, single = "Cluster only", "Standalone and edge only"
	want := map[string]string{
		"Run.worker": cluster, "Run.ranMsIsLowerBound": cluster, "Attempt.worker": cluster,
		"Waiting.labels": cluster, "Waiting.workers": cluster, "Waiting.workerLabels": cluster, "Waiting.reads": cluster,
		"Trigger.claimOwner": cluster, "Trigger.claimExpiresAtMs": cluster, "TriggerList.lastRunsUnknown": cluster, "RunNowView.waits": cluster,
		"Waiting.concurrency": single, "Waiting.holders": single, "Waiting.moreHolders": single, "Waiting.otherProjectsRuns": single,
		"Waiting.serverPid": single, "Waiting.serverStartedAtMs": single, "Waiting.dataDir": single, "Waiting.handedOver": single,
		"RunDetail.noServer": single, "TriggerList.noServer": single,
	}
	found := map[string]bool{}
	answerFields(doc, func(at string, schema map[string]any) {
		words, _ := schema["description"].(string)
		profile, only := want[at]
		found[at] = true
		switch {
		case only && !strings.HasPrefix(words, profile):
			t.Errorf("%s is given by one profile alone; its description must start %q: %q", at, profile, words)
		case !only && (strings.Contains(words, cluster) || strings.Contains(words, single)):
			t.Errorf("%s is given by every profile; its description says otherwise: %q", at, words)
		}
	})
	for _, at := range slices.Sorted(maps.Keys(want)) {
		if !found[at] {
			t.Errorf("%s is no answer field of the document", at)
		}
	}
}

// The edge binary's description gives the answers the fields the full
// binary's does, each but those only the cluster gives ("Cluster only"),
// which a server of the edge binary never answers: no field is left out
// but those, and none of those is described.
func TestTheOpenAPIDocumentOfTheEdgeBinaryLeavesOutTheFieldsOnlyTheClusterGives(t *testing.T) {
	t.Parallel()
	described := func(binary string) map[string]string {
		h, tokens := walkHandler(t, Config{Binary: binary})
		out := map[string]string{}
		answerFields(servedDocument(t, h, tokens[apitoken.Read]), func(at string, schema map[string]any) {
			out[at], _ = schema["description"].(string)
		})
		return out
	}
	full, edge := described("ql"), described("ql-edge")
	left := 0
	for _, at := range slices.Sorted(maps.Keys(full)) {
		_, kept := edge[at]
		switch cluster := strings.HasPrefix(full[at], clusterOnly); {
		case cluster && kept:
			t.Errorf("%s, given by the cluster alone, is in the edge binary's description: %q", at, edge[at])
		case !cluster && !kept:
			t.Errorf("%s, which every profile gives, is not in the edge binary's description", at)
		case cluster:
			left++
		}
	}
	for _, at := range slices.Sorted(maps.Keys(edge)) {
		if _, ok := full[at]; !ok {
			t.Errorf("%s is in the edge binary's description alone", at)
		}
	}
	if left < 10 {
		t.Errorf("the edge binary's description left out %d fields only the cluster gives; there are more than 10", left)
	}
}
