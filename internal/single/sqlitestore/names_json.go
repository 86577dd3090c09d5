package sqlitestore

import "encoding/json"

// namesJSON is names as the JSON array a listing's project filter reads
// with json_each: one bound parameter however many projects a token or
// console user is bound to, so the statement's text stays one.
func namesJSON(names []string) string {
	raw, _ := json.Marshal(names) // a []string always marshals
	return string(raw)
}
