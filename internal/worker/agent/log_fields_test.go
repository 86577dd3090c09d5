package agent

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// The worker's starting and registered lines give its labels and its
// servers as one comma-separated string each, in JSON (one type per field
// across lines: labels was a string in one and an object in the other)
// and in text format (where a map printed as Go's map[zone:eu] and a
// slice as [http://a http://b]).
func TestTheWorkerLogsItsLabelsAndServersAsOneStringInEveryLineAndFormat(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	servers := in.srv.URL + "," + strings.Replace(in.srv.URL, "127.0.0.1", "localhost", 1)
	const wantLabels = "sec=yes,zone=eu"
	// logged runs a worker until it registered and returns its log, in
	// JSON or, given text, in text format.
	logged := func(text bool) []string {
		buf := &syncBuffer{}
		w := runAgent(t, in, func(c *Config) {
			c.Server, c.Labels = servers, map[string]string{"zone": "eu", "sec": "yes"}
			if text {
				c.Logger = slog.New(slog.NewTextHandler(buf, nil))
			}
		})
		if !text {
			buf = w.logs
		}
		waitFor(t, "the registration", func() bool { return strings.Contains(buf.String(), "worker_registered") })
		if _, err := w.stop(); err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(buf.String()), "\n")
	}
	seen := map[string]bool{}
	for _, line := range logged(false) {
		var rec struct {
			Code   string `json:"code"`
			Labels any    `json:"labels"`
			Server any    `json:"server"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || (rec.Code != "worker_starting" && rec.Code != "worker_registered") {
			continue
		}
		seen[rec.Code] = true
		if rec.Labels != wantLabels {
			t.Errorf("%s gives labels %#v, want the string %q", rec.Code, rec.Labels, wantLabels)
		}
		if rec.Code == "worker_starting" && rec.Server != servers {
			t.Errorf("%s gives server %#v, want the string %q", rec.Code, rec.Server, servers)
		}
	}
	for _, line := range logged(true) {
		for code, want := range map[string][]string{
			"worker_starting":   {`labels=` + wantLabels, "server=" + servers},
			"worker_registered": {`labels=` + wantLabels},
		} {
			if !strings.Contains(line, "code="+code) {
				continue
			}
			seen[code+" text"] = true
			if !containsAll(strings.ReplaceAll(line, `"`, ""), want...) || strings.Contains(line, "map[") || strings.Contains(line, "=[") {
				t.Errorf("the %s line in text format does not give %q as written:\n%s", code, want, line)
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("lines seen: %v; want worker_starting and worker_registered in both formats", seen)
	}
}
