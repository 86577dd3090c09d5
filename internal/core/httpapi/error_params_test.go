package httpapi

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// An API error carries, beside its reason, the values its message names
// by the names the reason gives them (params), so a client words it in
// another language without parsing the English: a malformed project name
// is name_shape with the field and the value.
func TestAnAPIErrorCarriesTheParamsItsReasonNames(t *testing.T) {
	t.Parallel()
	h, tokens, _, _ := onePublishedTrigger(t)
	a := request(t, h, "GET", "/api/v1/projects/De%20mo", tokens[apitoken.Read], "")
	var body struct {
		Error struct {
			Reason string
			Params map[string]string
		}
	}
	if err := json.Unmarshal([]byte(a.raw), &body); err != nil || a.status != 400 || body.Error.Reason != "name_shape" ||
		!maps.Equal(body.Error.Params, map[string]string{"field": "project", "value": "De mo"}) {
		t.Fatalf("a malformed project name: %d %s; want 400 name_shape with params field project, value \"De mo\"", a.status, a.raw)
	}
}

// A value given where an id belongs that is none is refused, wherever it
// is given, with the value it was in its params: a Run's or a trigger's id
// in the path (not_a_run_id, not_a_trigger_id, param value) and a
// listing's filter or cursor (query_not_an_id, params parameter and
// value), as every refusal of a value a client sent carries it.
func TestAnIDThatIsNoneIsRefusedWithTheValueGivenInItsParams(t *testing.T) {
	t.Parallel()
	h, tokens, _, _ := onePublishedTrigger(t)
	for _, c := range []struct {
		target, reason string
		params         map[string]string
	}{
		{"/api/v1/runs/not-a-run", "not_a_run_id", map[string]string{"value": "not-a-run"}},
		{"/api/v1/triggers/not-a-trigger", "not_a_trigger_id", map[string]string{"value": "not-a-trigger"}},
		{"/api/v1/runs?trigger=x", "query_not_an_id", map[string]string{"parameter": "trigger", "value": "x"}},
		{"/api/v1/runs?after=1", "query_not_an_id", map[string]string{"parameter": "after", "value": "1"}},
		{"/api/v1/triggers?after=1", "query_not_an_id", map[string]string{"parameter": "after", "value": "1"}},
	} {
		a := request(t, h, "GET", c.target, tokens[apitoken.Read], "")
		var body struct {
			Error struct {
				Reason string
				Params map[string]string
			}
		}
		if err := json.Unmarshal([]byte(a.raw), &body); err != nil || a.status != 400 || body.Error.Reason != c.reason || !maps.Equal(body.Error.Params, c.params) {
			t.Errorf("GET %s: %d %s; want 400 %s with params %v", c.target, a.status, a.raw, c.reason, c.params)
		}
	}
}
