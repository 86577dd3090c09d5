package crontab

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The panel's ql raw of a URL carrying a user and password downloads the
// file with them, run for real with curl against a server asking for
// them, while neither the download task's script nor any command line of
// curl's holds the password; a quote and a backslash in it reach the
// server as written.
func TestADownloadTaskKeepsItsURLsPasswordOffCurlsCommandLine(t *testing.T) {
	t.Parallel()
	realCurl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("curl is needed to run a download task: %v", err)
		}
		t.Skipf("curl is absent (%v): no download to run", err)
	}
	const user, password, passwordInURL = "bot", `s3cr"et\x@y`, `s3cr%22et%5Cx%40y`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != password {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("// the file\n"))
	}))
	t.Cleanup(srv.Close)
	secretURL := strings.Replace(srv.URL, "://", "://"+user+":"+passwordInURL+"@", 1) + "/path/jd_x.js"

	res, err := Convert(strings.NewReader("0 0 * * * ql raw "+secretURL+"\n"), Options{Zone: "UTC"})
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("convert: %v %+v", err, res)
	}
	e := res.Entries[0]
	if strings.Contains(e.Script, "s3cr") || e.Env[CredentialUserVariable] != user || e.Env[CredentialPasswordVariable] != password {
		t.Fatalf("the download task: script\n%s\nenv %v; want the password in its env, decoded, and not in its script", e.Script, e.Env)
	}
	for _, p := range res.Problems {
		if strings.Contains(p.Why, "s3cr") || strings.Contains(p.Params["url"], "s3cr") {
			t.Errorf("the converter's note shows the password: %s %v", p.Why, p.Params)
		}
	}

	root := t.TempDir()
	shims, scripts, argv := filepath.Join(root, "shims"), filepath.Join(root, "scripts"), filepath.Join(root, "argv.log")
	if err := os.MkdirAll(shims, 0o755); err != nil {
		t.Fatal(err)
	}
	shim := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + argv + "'\nexec '" + realCurl + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shims, "curl"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", e.Script)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH"), "QL_SCRIPTS_DIR=" + scripts}
	for k, v := range e.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the download: %v\n%s", err, out)
	}
	if got, err := os.ReadFile(filepath.Join(scripts, "raw_jd_x.js")); err != nil || string(got) != "// the file\n" {
		t.Errorf("raw_jd_x.js is %q (%v), want the served file", got, err)
	}
	log, err := os.ReadFile(argv)
	if err != nil || !strings.Contains(string(log), srv.URL) {
		t.Fatalf("%s (%v) does not record curl's command line:\n%s", argv, err, log)
	}
	if strings.Contains(string(log), "s3cr") {
		t.Errorf("curl's command line holds the password:\n%s", log)
	}
}
