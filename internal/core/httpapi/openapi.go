package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/cmdname"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// openAPIPath serves the API's description in OpenAPI 3.1, made from the
// route table the mux is registered from, so that it cannot list a route
// the server does not answer nor leave one out.
const openAPIPath = "/api/v1/openapi.json"

// routeShape is what the route table does not hold of a route and its
// description gives: the query parameters its handler takes (the list it
// hands params, which TestTheOpenAPIDocumentNamesTheQueryParametersEachRouteTakes
// asks each route for) and the JSON body it decodes (the very type, whose
// fields the description reads), with the fields it refuses to go
// without.
type routeShape struct {
	query    []string
	body     any
	required []string
	// idempotent: the route takes the Idempotency-Key header as its
	// body's requestId (requestIDOf).
	idempotent bool
	// keyed: the route takes an optional Idempotency-Key header, a
	// request repeating one answering the first's Run (depsOnce).
	keyed bool
	// counts are the query parameters read by count, each with its
	// default and its most (the least is 1).
	counts map[string][2]int
}

// shapes are the routes that take query parameters or a JSON body, by
// "METHOD pattern"; a route absent takes neither.
var shapes = map[string]routeShape{
	"GET /api/v1/runs":                                                   {query: []string{"after", "from", "limit", "project", "state", "to", "trigger", "worker"}, counts: map[string][2]int{"limit": {run.DefaultPageSize, run.MaxPageSize}}},
	"GET /api/v1/runs/{id}/log":                                          {query: []string{"attempt", "offset", "tail"}},
	"POST /api/v1/runs/{id}/cancel":                                      {body: struct{}{}},
	"POST /api/v1/runs/{id}/rerun":                                       {body: RerunBody{}, idempotent: true},
	"GET /api/v1/notifications":                                          {query: []string{"after", "limit", "project", "state"}, counts: map[string][2]int{"limit": {notify.DefaultListed, notify.MaxListed}}},
	"POST /api/v1/notifications/{id}/retry":                              {body: struct{}{}},
	"GET /api/v1/triggers":                                               {query: []string{"after", "limit", "project", "lastRun", "search"}, counts: map[string][2]int{"limit": {defaultTriggerPage, maxTriggerPage}}},
	"GET /api/v1/triggers/{id}":                                          {query: []string{"ledger", "runs"}, counts: map[string][2]int{"ledger": {defaultLedger, view.MaxLedgerShown}, "runs": {detailRuns, run.MaxPageSize}}},
	"POST /api/v1/triggers/{id}/pause":                                   {body: pauseBody{}},
	"POST /api/v1/triggers/{id}/resume":                                  {body: pauseBody{}},
	"POST /api/v1/triggers/{id}/run":                                     {body: runNowBody{}, idempotent: true},
	"POST /api/v1/triggers/{id}/backfill":                                {body: backfillBody{}, required: []string{"fromMs", "toMs"}},
	"POST /api/v1/triggers/{id}/enable":                                  {body: struct{}{}},
	"POST /api/v1/triggers/{id}/disable":                                 {body: struct{}{}},
	"POST /api/v1/projects/{project}/pause":                              {body: pauseBody{}},
	"POST /api/v1/projects/{project}/resume":                             {body: pauseBody{}},
	"GET /api/v1/projects":                                               {query: []string{"after", "limit"}, counts: map[string][2]int{"limit": {view.ProjectListLimit, view.ProjectListLimit}}},
	"POST /api/v1/apply":                                                 {query: []string{"dryRun", "file", "createOnly"}},
	"DELETE /api/v1/projects/{name}":                                     {query: []string{"dryRun"}},
	"PUT /api/v1/secrets/{name}":                                         {body: secretSetBody{}, required: []string{"value"}},
	"GET /api/v1/audit":                                                  {query: []string{"action", "actor", "after", "limit", "project", "since_ms"}, counts: map[string][2]int{"limit": {audit.DefaultListed, audit.MaxListed}}},
	"POST /api/v1/dependencies":                                          {body: depsBody{}, keyed: true},
	"POST /api/v1/dependencies/install":                                  {body: depsBody{}, keyed: true},
	"POST /api/v1/dependencies/remove":                                   {body: depsBody{}, keyed: true},
	"POST /api/v1/dependencies/mirrors":                                  {body: mirrorBody{}, required: []string{"kind"}},
	"POST /api/v1/projects/{project}/notifications/channels/{name}/test": {body: struct{}{}},
}

// clusterQuery are the query parameters, by route, that only the full
// binary takes: they name what only the cluster has (the worker that held
// a Run). A server of the edge binary, which has none, refuses them as
// any unknown parameter (takes), and its description leaves them out.
var clusterQuery = map[string][]string{"GET /api/v1/runs": {"worker"}}

// edgeBinary reports whether binary is the edge build, which serves no
// cluster: its description names nothing only the cluster has.
func edgeBinary(binary string) bool { return binary != "" && binary != "ql" }

// takes is the query parameters of the route of key that binary serves:
// allowed, but the cluster's on the edge binary.
func takes(binary, key string, allowed ...string) []string {
	if !edgeBinary(binary) {
		return allowed
	}
	return slices.DeleteFunc(slices.Clone(allowed), func(q string) bool { return slices.Contains(clusterQuery[key], q) })
}

// queryTypes are the JSON Schema types of the query parameters that are
// not free text.
var queryTypes = map[string]string{
	"limit": "integer", "attempt": "integer", "offset": "integer", "tail": "integer", "runs": "integer", "ledger": "integer",
	"since_ms": "integer",
	"dryRun":   "boolean", "lastRun": "boolean", "createOnly": "boolean",
}

// mediaTypes are the answers that are not JSON.
var mediaTypes = map[string]string{
	"GET /api/v1/runs/{id}/log": "application/octet-stream",
	"GET " + backupPath:         "application/gzip",
	"GET " + metricsPath:        "text/plain",
}

// boundRuleWords say, for the description, what a token bound to projects
// reaches by a route of each rule; the operations guide's route table
// says the same.
var boundRuleWords = map[projectRule]string{ //nolint:gosec // G101: words of the description, no credential
	noProject:           "any token",
	pathProject:         "its projects, named in the path (403 project_not_in_scope for another)",
	runProject:          "its projects' Runs; another's is 404, as a missing one",
	triggerProject:      "its projects' triggers; another's is 404, as a missing one",
	notificationProject: "its projects' notifications; another's is 404, as a missing one",
	listed:              "its projects' rows only (403 project_not_in_scope for another's ?project=)",
	fileProject:         "a file of its projects",
	secretProject:       "its projects' secrets (PROJECT/NAME)",
	everyProject:        "refused (403 project_not_in_scope)",
}

var pathParam = regexp.MustCompile(`\{([a-z]+)\}`)

// describe is the OpenAPI 3.1 document of the routes of table, served by
// binary: the commands its words name are binary's (cmdname.As), as its
// refusals' are.
func describe(table []route, binary string) []byte {
	paths := map[string]map[string]any{}
	schemas := map[string]any{"Error": errorSchema}
	edge := edgeBinary(binary)
	answered := describeAnswers(schemas, edge)
	for _, rt := range table {
		op := map[string]any{
			"operationId": operationID(rt),
			"summary":     summaryOf(rt),
			"x-ql-scope":  scopeWords(rt.scope),
			"responses":   responsesOf(rt, answered[rt.method+" "+rt.pattern]),
		}
		if rt.scope == public {
			op["security"] = []any{}
		} else {
			op["x-ql-bound-token"] = boundRuleWords[rt.projects]
		}
		if ps := parametersOf(rt, binary); len(ps) > 0 {
			op["parameters"] = ps
		}
		if body := requestBodyOf(rt); body != nil {
			op["requestBody"] = body
		}
		if paths[rt.pattern] == nil {
			paths[rt.pattern] = map[string]any{}
		}
		paths[rt.pattern][strings.ToLower(rt.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "QingLong API",
			"version": "1",
			"description": "What each route does, its scope, the token bound to projects it serves, its query parameters and JSON body fields, " +
				"and the schema of the answers of the main reads (runs, a Run, triggers, projects) and of run now, read from the types the server encodes them from. " +
				"Each field of those answers says what it means, its unit, when it is absent and which profile alone gives it; " +
				"every refusal's reason is described in docs/operations.md (\"Refusal reasons\"). " +
				"Every error is the Error schema; match its reason, never its message.",
		},
		"security": []any{map[string]any{"bearer": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer",
				"description": "an API token, qlt_ and 43 more characters (ql tokens create NAME --scope read|operate|admin)"}},
			"schemas": schemas,
		},
	}
	out, err := json.Marshal(doc)
	if err != nil {
		panic("the OpenAPI document of the route table does not marshal: " + err.Error()) // only maps, strings and slices
	}
	if binary == "" || binary == "ql" {
		return out
	}
	// The document holds no user data: each of its strings is the
	// server's own words, renamed as a refusal's message is. Its numbers
	// are read back as written.
	var words any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&words); err != nil {
		panic("the OpenAPI document of the route table does not read back: " + err.Error()) // json.Marshal's own output
	}
	if out, err = json.Marshal(renamed(binary, words)); err != nil {
		panic("the OpenAPI document of the route table does not marshal: " + err.Error()) // decoded JSON values only
	}
	return out
}

// renamed is v, a decoded JSON value, with the commands of its strings
// renamed for binary; the keys are names, never words, and stay.
func renamed(binary string, v any) any {
	switch v := v.(type) {
	case string:
		return cmdname.As(binary, v)
	case []any:
		for i := range v {
			v[i] = renamed(binary, v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = renamed(binary, v[k])
		}
	}
	return v
}

// errorSchema is the one shape of every error the API answers.
var errorSchema = map[string]any{
	"type":     "object",
	"required": []string{"error"},
	"properties": map[string]any{"error": map[string]any{
		"type":        "object",
		"description": "the refusal: its kind, why, and what to do",
		"required":    []string{"code", "message"},
		"properties": map[string]any{
			"code":       map[string]any{"type": "string", "description": "the kind of refusal: invalid, not_found, conflict, failed_precondition, permission_denied, unauthenticated, rate_limited, unavailable, timeout, internal, …"},
			"message":    map[string]any{"type": "string", "description": "what was wrong and what to do, in English; its words may change"},
			"reason":     map[string]any{"type": "string", "description": "the refusal's stable name (docs/operations.md, \"Refusal reasons\"): match this"},
			"params":     map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "description": "the values the message names, by name"},
			"errors":     map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "an apply's every error of the file, in file order"},
			"moreErrors": map[string]any{"type": "integer", "description": "errors of the file past the first 50"},
		},
	}},
}

func operationID(rt route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.method))
	for _, part := range strings.FieldsFunc(rt.pattern, func(r rune) bool { return r == '/' || r == '{' || r == '}' || r == '.' }) {
		if part == "api" || part == "v1" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func summaryOf(rt route) string {
	switch {
	case rt.does != "":
		return rt.does
	case rt.pattern == "/livez":
		return "whether the process is alive"
	}
	return "whether the server is ready to serve"
}

func scopeWords(s apitoken.Scope) string {
	if s == public {
		return "none"
	}
	return string(s)
}

func parametersOf(rt route, binary string) []any {
	var ps []any
	for _, m := range pathParam.FindAllStringSubmatch(rt.pattern, -1) {
		ps = append(ps, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	for _, h := range []struct{ name, words string }{
		{"If-Match", "the project's revision (GET /api/v1/projects/{name} answers it as its ETag): the write is made only while the project is at it, else 412 spec_changed"},
		{"If-None-Match", "*: the file is applied only if no project has its name, else 412 project_exists"},
	} {
		if rt.preconditions.honours(h.name) {
			ps = append(ps, map[string]any{"name": h.name, "in": "header", "schema": map[string]any{"type": "string"}, "description": h.words})
		}
	}
	sh := shapes[rt.method+" "+rt.pattern]
	if sh.idempotent {
		ps = append(ps, map[string]any{"name": "Idempotency-Key", "in": "header", "schema": map[string]any{"type": "string"},
			"description": "the request id, when the body gives no requestId: asking again with it answers the Run it made"})
	}
	if sh.keyed {
		ps = append(ps, map[string]any{"name": "Idempotency-Key", "in": "header", "schema": map[string]any{"type": "string"},
			"description": "optional, 1–128 letters, digits, '.', '_' and '-': the same change asked again with it answers the Run the first made; with another body, 400 idempotency_key_mismatch; while another server makes it, 409 idempotency_key_in_use"})
	}
	for _, q := range takes(binary, rt.method+" "+rt.pattern, sh.query...) {
		typ := queryTypes[q]
		if typ == "" {
			typ = "string"
		}
		schema := map[string]any{"type": typ}
		if c, ok := sh.counts[q]; ok {
			schema["minimum"], schema["default"], schema["maximum"] = 1, c[0], c[1]
		}
		ps = append(ps, map[string]any{"name": q, "in": "query", "schema": schema})
	}
	return ps
}

func requestBodyOf(rt route) map[string]any {
	if rt.pattern == "/api/v1/apply" {
		return map[string]any{"required": true, "description": "a definitions file, as ql apply reads it, at most 1 MiB",
			"content": map[string]any{"application/yaml": map[string]any{"schema": map[string]any{"type": "string"}}}}
	}
	sh, ok := shapes[rt.method+" "+rt.pattern]
	if !ok || sh.body == nil {
		return nil
	}
	schema := objectSchema(reflect.TypeOf(sh.body))
	if len(sh.required) > 0 {
		schema["required"] = sh.required
	}
	words := "one JSON object, sent with Content-Type: application/json; a field it does not list is refused (body_unknown_field)"
	if sh.idempotent {
		words += fmt.Sprintf("; requestId (1–%d letters, digits, '.', '_' and '-') is required here or as the Idempotency-Key header", schedule.MaxRequestIDLen)
	}
	return map[string]any{"required": len(sh.required) > 0, "description": words,
		"content": map[string]any{"application/json": map[string]any{"schema": schema}}}
}

// objectSchema is the JSON Schema of the JSON object the struct type t
// decodes from, its fields named as decodeBody takes them, each described
// by its doc tag (what it is, its unit, default and bounds), so that a
// field added without one shows as undescribed in the document a test
// walks.
func objectSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		schema := valueSchema(f.Type)
		if words := f.Tag.Get(docTag); words != "" {
			schema["description"] = words
		}
		props[name] = schema
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
}

func valueSchema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": valueSchema(t.Elem())}
	}
	return objectSchema(t)
}

// responsesOf are rt's answers: its success, with schema where one is
// described (describeAnswers), and the Error of every refusal.
func responsesOf(rt route, schema map[string]any) map[string]any {
	media := mediaTypes[rt.method+" "+rt.pattern]
	if media == "" {
		media = "application/json"
	}
	content := map[string]any{}
	if schema != nil {
		content["schema"] = schema
	}
	ok := map[string]any{"description": rt.does + " (docs/operations.md describes the answer)",
		"content": map[string]any{media: content}}
	if rt.does == "" {
		ok["description"] = summaryOf(rt)
	}
	return map[string]any{
		"200":     ok,
		"default": map[string]any{"description": "a refusal", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}},
	}
}

// openAPI answers the description of the routes this server serves.
func (a *api) openAPI(_ context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	return json.RawMessage(a.described), nil
}
