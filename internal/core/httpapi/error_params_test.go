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
