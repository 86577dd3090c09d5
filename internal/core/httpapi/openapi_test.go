package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// describedParameter is a parameter of an operation of the description.
type describedParameter struct {
	Name   string `json:"name"`
	In     string `json:"in"`
	Schema struct {
		Minimum *int `json:"minimum"`
		Maximum *int `json:"maximum"`
		Default *int `json:"default"`
	} `json:"schema"`
}

// openAPIDoc is the part of the served description the tests read.
type openAPIDoc struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]map[string]struct {
		Scope       string               `json:"x-ql-scope"`
		Parameters  []describedParameter `json:"parameters"`
		RequestBody struct {
			Content map[string]struct {
				Schema struct {
					Properties map[string]any `json:"properties"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	} `json:"paths"`
}

func servedOpenAPI(t *testing.T, h http.Handler, token string) openAPIDoc {
	t.Helper()
	req := httptest.NewRequest("GET", openAPIPath, nil)
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s %s", openAPIPath, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("the description is not JSON: %v", err)
	}
	return doc
}

// refusalAnswer is a request's status, headers and its error's reason
// and params.
type refusalAnswer struct {
	status int
	header http.Header
	raw    string
	err    struct {
		Reason string
		Params map[string]string
	}
}

// askRefused sends one request with token (and a JSON body when not
// empty) and reads its refusal.
func askRefused(t *testing.T, h http.Handler, method, target, token, body string) refusalAnswer {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	a := refusalAnswer{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	var b struct {
		Error struct {
			Reason string
			Params map[string]string
		}
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &b)
	a.err.Reason, a.err.Params = b.Error.Reason, b.Error.Params
	return a
}

// routeKey is a route as the shapes name it.
func routeKey(rt route) string { return rt.method + " " + rt.pattern }

// GET /api/v1/openapi.json describes exactly the routes of the table the
// server is registered from, each with the scope the table gives it and
// every parameter of its path, and a shape names no route the table lacks.
func TestTheOpenAPIDocumentDescribesEveryRouteOfTheTableAndNoOther(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{})
	doc := servedOpenAPI(t, h, tokens[apitoken.Read])
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q; want 3.1.0", doc.OpenAPI)
	}
	var described, table []string
	for path, ops := range doc.Paths {
		for method := range ops {
			described = append(described, strings.ToUpper(method)+" "+path)
		}
	}
	for _, rt := range routes {
		table = append(table, routeKey(rt))
		op := doc.Paths[rt.pattern][strings.ToLower(rt.method)]
		if want := scopeWords(rt.scope); op.Scope != want {
			t.Errorf("%s: x-ql-scope %q; the table says %q", routeKey(rt), op.Scope, want)
		}
		for _, m := range pathParam.FindAllStringSubmatch(rt.pattern, -1) {
			if !slices.ContainsFunc(op.Parameters, func(p describedParameter) bool {
				return p.Name == m[1] && p.In == "path"
			}) {
				t.Errorf("%s: the path parameter %s is not described", routeKey(rt), m[1])
			}
		}
	}
	slices.Sort(described)
	slices.Sort(table)
	if !slices.Equal(described, table) {
		t.Errorf("the description has %v;\nthe route table %v", described, table)
	}
	for key, sh := range shapes {
		if !slices.Contains(table, key) {
			t.Errorf("shapes names %s, which the route table has not", key)
		}
		for name := range sh.counts {
			if !slices.Contains(sh.query, name) {
				t.Errorf("%s: the count %s is none of its query parameters %v", key, name, sh.query)
			}
		}
	}
}

// Each route's described query parameters are the ones its handler takes:
// the server's own refusal of an unknown parameter lists them. So on the
// full binary and on the edge binary, which takes none of the cluster's.
func TestTheOpenAPIDocumentNamesTheQueryParametersEachRouteTakes(t *testing.T) {
	t.Parallel()
	for _, binary := range []string{"ql", "ql-edge"} {
		h, tokens := walkHandler(t, Config{DryRuns: &DryRuns{}, Binary: binary})
		doc := servedOpenAPI(t, h, tokens[apitoken.Admin])
		for _, rt := range routes {
			// The probes and the metrics read no query string.
			if rt.scope == public || rt.pattern == metricsPath {
				continue
			}
			var described []string
			for _, p := range doc.Paths[rt.pattern][strings.ToLower(rt.method)].Parameters {
				if p.In == "query" {
					described = append(described, p.Name)
				}
			}
			target := strings.NewReplacer("{id}", someID, "{project}", "demo", "{name}", "demo").Replace(rt.pattern) + "?undescribed=1"
			a := askRefused(t, h, rt.method, target, tokens[apitoken.Admin], "")
			if a.status != 400 || a.err.Reason != string(RefusalQueryUnknown) {
				t.Errorf("%s: %s with an unknown parameter: %d %s; want 400 %s", binary, routeKey(rt), a.status, a.raw, RefusalQueryUnknown)
				continue
			}
			if got := strings.Join(described, ", "); a.err.Params["allowed"] != got {
				t.Errorf("%s: %s takes %q; the description says %q", binary, routeKey(rt), a.err.Params["allowed"], got)
			}
		}
	}
}

// wiredHandler is the API on a real embedded database with every part a
// standalone server gives it, so that each route reaches its handler's
// reading of the request, and its tokens.
func wiredHandler(t *testing.T) (http.Handler, map[apitoken.Scope]string) {
	t.Helper()
	st, scoped := tokenStore(t)
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Pauser: st, ProjectPauser: st, Manual: st, Export: st, Notifications: st, Audit: st,
		Enabler: catalog.Service{Store: st, Executor: task.LocalProcess}, Dependencies: &deps.Service{}, DependencyKeys: st,
		Cancel: func(context.Context, string, string) (run.Run, run.CancelEffect, error) {
			t.Error("a body refused reached the cancel")
			return run.Run{}, run.CancelEffect{}, nil
		},
		TryChannel: func(context.Context, string, string, notify.Channel) notify.Trial {
			t.Error("a body refused reached the channel's test")
			return notify.Trial{}
		},
		Secrets: &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")},
		Ready:   func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	return h, scoped
}

// Each write route's described JSON body has the fields its handler
// decodes: the server's own refusal of an unknown field lists them; a
// write described without a body takes none.
func TestTheOpenAPIDocumentNamesTheBodyFieldsEachWriteTakes(t *testing.T) {
	t.Parallel()
	h, scoped := wiredHandler(t)
	doc := servedOpenAPI(t, h, scoped[apitoken.Read])
	for _, rt := range routes {
		if rt.method == http.MethodGet || rt.pattern == "/api/v1/apply" {
			continue
		}
		target := strings.NewReplacer("{id}", someID, "{project}", "demo", "{name}", "demo%2FKEY").Replace(rt.pattern)
		a := askRefused(t, h, rt.method, target, scoped[apitoken.Admin], `{"undescribed":1}`)
		content := doc.Paths[rt.pattern][strings.ToLower(rt.method)].RequestBody.Content
		if content == nil {
			if a.err.Reason == string(RefusalBodyUnknownField) {
				t.Errorf("%s reads a JSON body (it takes %q) the description does not describe", routeKey(rt), a.err.Params["allowed"])
			}
			continue
		}
		described := "no field: send {} or no body"
		if props := content["application/json"].Schema.Properties; len(props) > 0 {
			described = strings.Join(jsonFields(shapes[routeKey(rt)].body), ", ")
			for _, f := range strings.Split(described, ", ") {
				if props[f] == nil {
					t.Errorf("%s: the field %s is not described", routeKey(rt), f)
				}
			}
		}
		if a.status != 400 || a.err.Reason != string(RefusalBodyUnknownField) {
			t.Errorf("%s with an unknown field: %d %s; want 400 %s", routeKey(rt), a.status, a.raw, RefusalBodyUnknownField)
			continue
		}
		if a.err.Params["allowed"] != described {
			t.Errorf("%s takes %q; the description says %q", routeKey(rt), a.err.Params["allowed"], described)
		}
	}
}

// Each count a read takes (limit, runs, ledger) is described with the
// least, the most and the default its handler reads it with: the
// server's own refusal of 0 names its range and default, and a parameter
// so refused is never described without them.
func TestTheOpenAPIDocumentStatesTheRangeOfEachCount(t *testing.T) {
	t.Parallel()
	h, scoped := wiredHandler(t)
	doc := servedOpenAPI(t, h, scoped[apitoken.Read])
	for _, rt := range routes {
		if rt.method != http.MethodGet || rt.scope == public || rt.pattern == metricsPath {
			continue
		}
		for _, p := range doc.Paths[rt.pattern][strings.ToLower(rt.method)].Parameters {
			if p.In != "query" {
				continue
			}
			target := strings.NewReplacer("{id}", someID, "{name}", "demo").Replace(rt.pattern) + "?" + p.Name + "=0"
			a := askRefused(t, h, rt.method, target, scoped[apitoken.Admin], "")
			isCount := a.err.Reason == string(RefusalQueryNotACount) && a.err.Params["max"] != ""
			described := p.Schema.Minimum != nil && p.Schema.Maximum != nil && p.Schema.Default != nil
			switch {
			case isCount && !described:
				t.Errorf("%s?%s is a count (%s) described without its range and default", routeKey(rt), p.Name, a.raw)
			case !isCount && described:
				t.Errorf("%s?%s is described as a count; the server answers 0 with %s", routeKey(rt), p.Name, a.raw)
			case isCount && (fmt.Sprint(*p.Schema.Minimum) != a.err.Params["min"] || fmt.Sprint(*p.Schema.Maximum) != a.err.Params["max"] ||
				!strings.Contains(a.raw, fmt.Sprintf("leave it out for %d", *p.Schema.Default))):
				t.Errorf("%s?%s is described as %d to %d, default %d; the server says %s", routeKey(rt), p.Name, *p.Schema.Minimum, *p.Schema.Maximum, *p.Schema.Default, a.raw)
			}
		}
	}
}
