package server

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The setup page of ql-edge, which never serves a cluster replica, says
// where its setup code is without a word of replicas or of a flag only
// the full binary has, in English and in Chinese; the full binary's page
// keeps that sentence.
func TestTheEdgeSetupPageNamesNoClusterReplica(t *testing.T) {
	t.Parallel()
	for _, binary := range []string{"ql-edge", "ql"} {
		srv, err := Start(t.Context(), Config{DataDir: installedDir(t), HTTPAddr: "127.0.0.1:0", Binary: binary, Cadence: time.Hour,
			StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		stopAtCleanup(t, srv)
		for _, lang := range []string{"en", "zh"} {
			resp, page := httpcall.Form(t, http.DefaultClient, http.MethodGet, "http://"+srv.Addr()+"/setup?lang="+lang, nil)
			if resp.StatusCode != http.StatusOK || !strings.Contains(page, SetupCodeFile) {
				t.Fatalf("%s setup page (%s): %d, want 200 naming %s:\n%s", binary, lang, resp.StatusCode, SetupCodeFile, page)
			}
			if named := strings.Contains(page, "--setup-code-dir"); named != (binary == "ql") {
				t.Errorf("%s setup page (%s) names --setup-code-dir: %v, want %v", binary, lang, named, binary == "ql")
			}
		}
	}
}
