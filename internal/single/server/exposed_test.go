package server

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/metrics"
)

// A listener other machines reach without protection says so once at
// start, with what crosses the network in clear and what to do: plain
// HTTP on the API's address (--insecure-http) and the metrics listener,
// which has neither TLS nor a token. On loopback both are quiet.
func TestListenersOtherMachinesReachWithoutProtectionAreWarnedAboutAtStart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		host string
		warn int
	}{{"0.0.0.0", 1}, {"127.0.0.1", 0}} {
		var log lockedBuffer
		_, err := startQuiet(t, Config{DataDir: t.TempDir(), HTTPAddr: c.host + ":0", MetricsAddr: c.host + ":0", TLS: httpapi.TLSSettings{Insecure: true},
			Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		for code, says := range map[string][]string{
			httpapi.CodePlainHTTPExposed: {"API tokens, console passwords and session cookies", "--tls-cert and --tls-key"},
			metrics.CodeExposed:          {"no token and no Host check", "bind a loopback address"},
		} {
			if got := strings.Count(log.String(), "code="+code); got != c.warn {
				t.Errorf("listening on %s: %d lines %s, want %d; log:\n%s", c.host, got, code, c.warn, log.String())
			}
			for _, s := range says {
				if c.warn == 1 && !strings.Contains(log.String(), s) {
					t.Errorf("the %s warning does not say %q:\n%s", code, s, log.String())
				}
			}
		}
	}
}
