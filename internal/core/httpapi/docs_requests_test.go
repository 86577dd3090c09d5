package httpapi

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// curlURL is the path of a curl line's URL: after the host of an
// address, or after the $B the guide's examples use for the base URL.
var curlURL = regexp.MustCompile(`(?:https?://[^/\s"']+|\$B)(/[^\s"'?]*)`)

// curlMethod is a curl line's -X METHOD.
var curlMethod = regexp.MustCompile(`-X\s+([A-Z]+)`)

// curlRequests are the method and path of each curl request the text
// shows: its -X, else POST when it sends data, else GET; its lines joined
// where they end with a backslash.
func curlRequests(text string) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		if !strings.Contains(line, "curl ") {
			continue
		}
		m := curlURL.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		method := "GET"
		switch x := curlMethod.FindStringSubmatch(line); {
		case x != nil:
			method = x[1]
		case strings.Contains(line, " -d ") || strings.Contains(line, "--data"):
			method = "POST"
		}
		out = append(out, [2]string{method, m[1]})
	}
	return out
}

// servedBy is whether a route of the table of method serves path, whose
// segments written as shell variables ($RUN_ID) stand for the pattern's
// wildcards ({id}).
func servedBy(method, path string) bool {
	segs := strings.Split(path, "/")
	return slices.ContainsFunc(routes, func(rt route) bool {
		pat := strings.Split(rt.pattern, "/")
		if rt.method != method || len(pat) != len(segs) {
			return false
		}
		for i, p := range pat {
			wild := strings.HasPrefix(p, "{")
			if !wild && p != segs[i] || wild && segs[i] == "" {
				return false
			}
		}
		return true
	})
}

// Every curl request the guides and the README show asks a route the
// table serves, with the method it takes: an example cannot name a path
// that was renamed or a method the route does not take.
func TestEveryRequestTheGuidesShowIsARouteOfTheTable(t *testing.T) {
	t.Parallel()
	docs := []string{"../../../README.md"}
	more, err := os.ReadDir("../../../docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range more {
		if strings.HasSuffix(e.Name(), ".md") {
			docs = append(docs, "../../../docs/"+e.Name())
		}
	}
	shown := 0
	for _, path := range docs {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range curlRequests(string(text)) {
			shown++
			if !servedBy(req[0], req[1]) {
				t.Errorf("%s shows curl %s %s, which no route of the table serves", strings.TrimPrefix(path, "../../../"), req[0], req[1])
			}
		}
	}
	if shown < 30 {
		t.Fatalf("only %d curl requests were found in the guides; the scan is broken", shown)
	}
}
