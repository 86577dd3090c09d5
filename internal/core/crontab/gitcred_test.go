package crontab

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// The user and token of the repository gitServer serves: the token
// percent-encoded in the URL as a user would write its '@'.
const (
	gitUser       = "bot"
	gitToken      = "ghp_Tok3n@x"
	gitTokenInURL = "ghp_Tok3n%40x"
	// gitTokenPart is what of the token is looked for where it must not
	// be, in either spelling.
	gitTokenPart = "ghp_Tok3n"
)

// httpBackend is git's http-backend program; it skips t where it is
// absent, but for in CI, where it must be.
func httpBackend(t *testing.T) string {
	t.Helper()
	needGit(t)
	out, err := exec.Command("git", "--exec-path").Output()
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, statErr := os.Stat(backend); err != nil || statErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git http-backend is needed to serve a repository over HTTP: %v %v", err, statErr)
		}
		t.Skipf("git http-backend is absent (%v %v): no repository to serve over HTTP", err, statErr)
	}
	return backend
}

// gitServer serves the bare repositories under root over HTTP through git
// http-backend, to requests carrying gitUser and gitToken only, and is
// its URL.
func gitServer(t *testing.T, root string) string {
	t.Helper()
	backend := &cgi.Handler{Path: httpBackend(t), Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, password, ok := r.BasicAuth(); !ok || user != gitUser || password != gitToken {
			w.Header().Set("WWW-Authenticate", `Basic realm="repo"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A subscription's URL with a token in it, pulled over HTTP from a
// server requiring it: the pull task's script holds no token, git's
// command lines (its own and those of the processes it starts, such as
// git-remote-http) never hold it, and the clone's .git/config keeps the
// URL without it, after a clone, after a fetch, and after a fetch into a
// clone an earlier script made with the token in its URL; git has it from
// the task's env through a credential helper.
func TestAPullTaskKeepsItsURLsTokenOffGitsCommandLinesAndOutOfTheClone(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	served, work, scripts, shims, home := filepath.Join(root, "served"), filepath.Join(root, "work"), filepath.Join(root, "scripts"), filepath.Join(root, "shims"), filepath.Join(root, "home")
	for _, d := range []string{shims, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bareRepo(t, filepath.Join(served, "owner", "repo.git"), work)
	commit := func(content string) {
		if err := os.WriteFile(filepath.Join(work, "jd_a.js"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, work, "add", "jd_a.js")
		git(t, work, "commit", "-q", "-m", content)
		git(t, work, "push", "-q", "origin", "HEAD:main")
	}
	commit("// first\n")
	server := gitServer(t, served)
	bareURL := server + "/owner/repo.git"
	secretURL := strings.Replace(bareURL, "://", "://"+gitUser+":"+gitTokenInURL+"@", 1)

	res, err := Convert(strings.NewReader("0 0 * * * ql repo "+secretURL+` "jd_" "" "" "main"`+"\n"), Options{Zone: "UTC"})
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("convert: %v %+v", err, res)
	}
	e := res.Entries[0]
	if strings.Contains(e.Script, gitTokenPart) || e.Env[CredentialUserVariable] != gitUser || e.Env[CredentialPasswordVariable] != gitToken {
		t.Fatalf("the pull task: script\n%s\nenv %v; want the token in its env, decoded, and not in its script", e.Script, e.Env)
	}
	for _, p := range res.Problems {
		if strings.Contains(p.Why, gitTokenPart) || strings.Contains(p.Params["url"], gitTokenPart) {
			t.Errorf("the converter's note shows the token: %s %v", p.Why, p.Params)
		}
	}

	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	argv, trace := filepath.Join(root, "argv.log"), filepath.Join(root, "trace.log")
	shim := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + argv + "'\nexec '" + realGit + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shims, "git"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_TRACE=" + trace, "QL_SCRIPTS_DIR=" + scripts}
	for k, v := range e.Env {
		env = append(env, k+"="+v)
	}
	pull := func(step string) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", e.Script)
		cmd.Dir, cmd.Env = t.TempDir(), env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", step, err, out)
		}
	}
	folder := filepath.Join(scripts, "owner_repo_main")
	check := func(step, content string) {
		t.Helper()
		if got, err := os.ReadFile(filepath.Join(folder, "jd_a.js")); err != nil || string(got) != content {
			t.Errorf("%s: jd_a.js is %q (%v), want %q", step, got, err, content)
		}
		if config, err := os.ReadFile(filepath.Join(folder, ".git", "config")); err != nil || strings.Contains(string(config), gitTokenPart) {
			t.Errorf("%s: the clone's .git/config (%v) holds the token:\n%s", step, err, config)
		}
		if got := strings.TrimSpace(git(t, folder, "remote", "get-url", "origin")); got != bareURL {
			t.Errorf("%s: origin is %q, want %q", step, got, bareURL)
		}
	}

	unauthenticated := exec.Command("git", "ls-remote", "--", bareURL)
	unauthenticated.Env = env
	if out, err := unauthenticated.CombinedOutput(); err == nil {
		t.Fatalf("the server answered git without the token:\n%s", out)
	}
	// A clone as an earlier pull script made it, the token in its URL.
	git(t, root, "clone", "-q", "--depth", "1", "--branch", "main", secretURL, folder)
	if config, _ := os.ReadFile(filepath.Join(folder, ".git", "config")); !strings.Contains(string(config), gitTokenPart) {
		t.Fatalf("the earlier clone's .git/config holds no token, nothing to write over:\n%s", config)
	}
	commit("// second\n")
	pull("the fetch into the earlier clone")
	check("the fetch into the earlier clone", "// second\n")
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	pull("the clone")
	check("the clone", "// second\n")
	commit("// third\n")
	pull("the fetch")
	check("the fetch", "// third\n")

	for file, ran := range map[string]string{argv: "clone --depth 1", trace: "git-remote-http"} {
		log, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(log), ran) {
			t.Fatalf("%s (%v) does not record %q: the command lines were not recorded:\n%s", file, err, ran, log)
		}
		if strings.Contains(string(log), gitTokenPart) {
			t.Errorf("a command line of git's, as %s records it, holds the token:\n%s", file, log)
		}
	}
}

// Only an http or https URL's user and password move to the pull task's
// env: an ssh URL's user is the account ssh signs in as, no secret, and
// stays in the URL git is given; a URL without credentials gives no env.
func TestOnlyAnHTTPURLsCredentialsMoveToThePullTasksEnv(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]struct {
		inScript string
		env      map[string]string
	}{
		"HTTPS://tok@host/o/r.git":  {"HTTPS://host/o/r.git", map[string]string{CredentialUserVariable: "tok", CredentialPasswordVariable: ""}},
		"http://u:p%3Aq@host:8/o/r": {"http://host:8/o/r", map[string]string{CredentialUserVariable: "u", CredentialPasswordVariable: "p:q"}},
		"https://host/o/r.git":      {"https://host/o/r.git", nil},
		"ssh://git@host/o/r.git":    {"ssh://git@host/o/r.git", nil},
		"git@host:o/r.git":          {"git@host:o/r.git", nil},
		"https://host/o/a@b.git":    {"https://host/o/a@b.git", nil},
	} {
		p, why := PullOf(url, "")
		if why != "" || !strings.Contains(p.Script, "-- "+shellquote.Quote(want.inScript)+" ") || (p.Env == nil) != (want.env == nil) {
			t.Errorf("%s: %q env %v\n%s\nwant the script to name %s, env %v", url, why, p.Env, p.Script, want.inScript, want.env)
			continue
		}
		for k, v := range want.env {
			if p.Env[k] != v {
				t.Errorf("%s: %s is %q, want %q", url, k, p.Env[k], v)
			}
		}
		// An http or https URL without credentials gets the helper too, for
		// credentials its task's env may be given from a secret, but only
		// when the env gives them (envGit).
		web := strings.HasPrefix(strings.ToLower(url), "http")
		if strings.Contains(p.Script, "credential.helper") != web || strings.Contains(p.Script, envGitName+"()") != (web && want.env == nil) {
			t.Errorf("%s: the script gives a credential helper to a URL of no http or https, or none to one, or not by the env's:\n%s", url, p.Script)
		}
	}
}

// A subscription whose URL names no user (https://host/o/r) pulls a
// private repository over HTTP with the user and password its task's env
// gives, as from a secret, git reading them through the pull script's
// credential helper, on its clone and on its fetches; without them the
// server refuses the pull, and neither the script nor git's output holds
// the token.
func TestAPullOfAURLWithoutAUserReadsTheCredentialsItsTasksEnvGives(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	served, work, home, scripts := filepath.Join(root, "served"), filepath.Join(root, "work"), filepath.Join(root, "home"), filepath.Join(root, "scripts")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	bareRepo(t, filepath.Join(served, "owner", "repo.git"), work)
	commit := func(content string) {
		if err := os.WriteFile(filepath.Join(work, "jd_a.js"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, work, "add", "jd_a.js")
		git(t, work, "commit", "-q", "-m", content)
		git(t, work, "push", "-q", "origin", "HEAD:main")
	}
	commit("// first\n")
	p, why := PullOf(gitServer(t, served)+"/owner/repo.git", "main")
	if why != "" || p.Env != nil {
		t.Fatalf("the pull task of a URL without a user: %s, env %v; want one with no env of its own", why, p.Env)
	}
	pull := func(env map[string]string) (string, error) {
		cmd := exec.Command("/bin/sh", "-c", p.Script)
		cmd.Dir, cmd.Env = t.TempDir(), gitEnv(home, scripts, env)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := pull(nil); err == nil {
		t.Fatalf("the server let a pull without credentials clone:\n%s", out)
	}
	secret := map[string]string{CredentialUserVariable: gitUser, CredentialPasswordVariable: gitToken}
	folder := filepath.Join(scripts, p.Folder)
	for _, step := range []string{"// first\n", "// second\n"} {
		if step != "// first\n" {
			commit(step)
		}
		out, err := pull(secret)
		if err != nil {
			t.Fatalf("the pull with the env's credentials: %v\n%s", err, out)
		}
		if got, err := os.ReadFile(filepath.Join(folder, "jd_a.js")); err != nil || string(got) != step {
			t.Errorf("after the pull jd_a.js is %q (%v), want %q", got, err, step)
		}
		if strings.Contains(out, gitTokenPart) || strings.Contains(p.Script, gitTokenPart) {
			t.Errorf("the script or git's output holds the token:\n%s\n%s", p.Script, out)
		}
	}
}

// A subscription whose URL carries no credentials and whose task's env
// gives none pulls with the credentials the server account's own git
// configuration gives (its credential helper, here git's store of
// ~/.git-credentials), as it always did: the pull script's helper, which
// drops the account's, is given to git only when the env gives some.
func TestAPullWithoutCredentialsOfItsOwnAsksTheAccountsCredentialHelper(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	served, work, home := filepath.Join(root, "served"), filepath.Join(root, "work"), filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	bareRepo(t, filepath.Join(served, "owner", "repo.git"), work)
	git(t, work, "commit", "-q", "--allow-empty", "-m", "first")
	git(t, work, "push", "-q", "origin", "HEAD:main")
	server := gitServer(t, served)
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[credential]\n\thelper = store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".git-credentials"), []byte(withToken(server)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ := PullOf(server+"/owner/repo.git", "main")
	scripts := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", p.Script)
	cmd.Dir, cmd.Env = t.TempDir(), gitEnv(home, scripts, nil)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the pull with the account's stored credentials: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(scripts, p.Folder, ".git")); err != nil {
		t.Errorf("the pull made no clone: %v", err)
	}
}
