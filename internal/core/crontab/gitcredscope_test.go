package crontab

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// notingGitServer serves the bare repositories under root over HTTP, as
// gitServer does, to requests carrying gitUser and gitToken only, and
// notes by the host each request named (its Host header) how many came
// and how many carried credentials. A request under /to/HOST/ is
// redirected to http://HOST/ and the rest of its path.
type notingGitServer struct {
	URL string
	mu  sync.Mutex
	// asked and told count the requests by host, and those with
	// credentials.
	asked, told map[string]int
}

func newNotingGitServer(t *testing.T, root string) *notingGitServer {
	t.Helper()
	s := &notingGitServer{asked: map[string]int{}, told: map[string]int{}}
	backend := &cgi.Handler{Path: httpBackend(t), Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, ok := r.BasicAuth()
		s.mu.Lock()
		s.asked[r.Host]++
		if r.Header.Get("Authorization") != "" {
			s.told[r.Host]++
		}
		s.mu.Unlock()
		if rest, moved := strings.CutPrefix(r.URL.RequestURI(), "/to/"); moved {
			host, path, _ := strings.Cut(rest, "/")
			http.Redirect(w, r, "http://"+host+"/"+path, http.StatusFound)
			return
		}
		if !ok || user != gitUser || password != gitToken {
			w.Header().Set("WWW-Authenticate", `Basic realm="repo"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// host is the server's host and port as a request names it, with
// hostname in place of the address it listens on.
func (s *notingGitServer) host(hostname string) string {
	u, _ := url.Parse(s.URL)
	return hostname + ":" + u.Port()
}

// counts are the requests naming host, and those of them with
// credentials.
func (s *notingGitServer) counts(host string) (asked, told int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[host], s.told[host]
}

// gitEnv is the environment a pull runs git in for the test: no account
// configuration but home's, no prompt, the scripts folder, and env.
func gitEnv(home, scripts string, env map[string]string) []string {
	out := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "QL_SCRIPTS_DIR=" + scripts}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// withToken is u with gitUser and gitToken before its host.
func withToken(u string) string {
	return strings.Replace(u, "://", "://"+gitUser+":"+gitTokenInURL+"@", 1)
}

// A pull task's credential helper answers git for the subscription's own
// scheme, host and port only, whether the token came in its URL or its
// env gives it (from a secret) to a URL without a user: a subscription
// whose server redirects git to another host, or to another port of its
// own, pulls nothing there and the other end never receives the token
// (git asked it, and failed for want of credentials), while a
// subscription of that other end itself still pulls with it.
func TestAPullTasksCredentialsGoToItsOwnHostOnlyNotWhereARedirectLeads(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	served, work, home := filepath.Join(root, "served"), filepath.Join(root, "work"), filepath.Join(root, "home")
	bareRepo(t, filepath.Join(served, "owner", "repo.git"), work)
	git(t, work, "commit", "-q", "--allow-empty", "-m", "first")
	git(t, work, "push", "-q", "origin", "HEAD:main")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	own, other := newNotingGitServer(t, served), newNotingGitServer(t, served)
	for _, c := range []struct {
		why, to string
		at      *notingGitServer
	}{
		{"another host, the same port", own.host("localhost"), own},
		{"another port of the same host", other.host("127.0.0.1"), other},
	} {
		for _, inURL := range []bool{true, false} {
			why := c.why + ", the token in the URL"
			p, _ := PullOf(withToken(own.URL)+"/to/"+c.to+"/owner/repo.git", "main")
			env := p.Env
			if !inURL {
				why = c.why + ", the token in the env of a URL without a user"
				p, _ = PullOf(own.URL+"/to/"+c.to+"/owner/repo.git", "main")
				env = map[string]string{CredentialUserVariable: gitUser, CredentialPasswordVariable: gitToken}
			}
			scripts := t.TempDir()
			cmd := exec.Command("/bin/sh", "-c", p.Script)
			cmd.Dir, cmd.Env = t.TempDir(), gitEnv(home, scripts, env)
			out, err := cmd.CombinedOutput()
			if asked, told := c.at.counts(c.to); asked == 0 || told != 0 {
				t.Errorf("%s: the other end was asked %d times, %d with the token; want asked, never told", why, asked, told)
			}
			if err == nil || strings.Contains(string(out), gitTokenPart) {
				t.Errorf("%s: the pull %v; want it failed for want of credentials, its output without the token:\n%s", why, err, out)
			}
			if _, err := os.Stat(filepath.Join(scripts, p.Folder, ".git")); err == nil {
				t.Errorf("%s: the pull made its clone", why)
			}
		}
	}
	p, _ := PullOf(withToken(other.URL)+"/owner/repo.git", "main")
	cmd := exec.Command("/bin/sh", "-c", p.Script)
	cmd.Dir, cmd.Env = t.TempDir(), gitEnv(home, t.TempDir(), p.Env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the subscription of the other end itself: %v\n%s", err, out)
	}
	if _, told := other.counts(other.host("127.0.0.1")); told == 0 {
		t.Errorf("the subscription of the other end pulled without giving it the token: nothing was tested")
	}
}

// A submodule on another host gets no credentials from a pull task's
// helper: git hands its -c options to the git processes it starts, a
// submodule's clone among them, and the helper answers for the
// subscription's own host only. The pull itself clones no submodules;
// git is run here with the pull's helper and --recurse-submodules, the
// submodule on another host of the same server.
func TestASubmoduleOnAnotherHostGetsNoCredentialsFromThePullsHelper(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	served, home := filepath.Join(root, "served"), filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	sub, subWork := filepath.Join(served, "owner", "sub.git"), filepath.Join(root, "subwork")
	bareRepo(t, sub, subWork)
	git(t, subWork, "commit", "-q", "--allow-empty", "-m", "sub")
	git(t, subWork, "push", "-q", "origin", "HEAD:main")
	commit := strings.TrimSpace(git(t, subWork, "rev-parse", "HEAD"))

	srv := newNotingGitServer(t, served)
	elsewhere := srv.host("localhost")
	work := filepath.Join(root, "work")
	bareRepo(t, filepath.Join(served, "owner", "repo.git"), work)
	if err := os.WriteFile(filepath.Join(work, ".gitmodules"), []byte("[submodule \"sub\"]\n\tpath = sub\n\turl = http://"+elsewhere+"/owner/sub.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, work, "update-index", "--add", "--cacheinfo", "160000,"+commit+",sub")
	git(t, work, "add", ".gitmodules")
	git(t, work, "commit", "-q", "-m", "with a submodule elsewhere")
	git(t, work, "push", "-q", "origin", "HEAD:main")

	bare, user, password, ok := gitCredentials(withToken(srv.URL) + "/owner/repo.git")
	if !ok {
		t.Fatal("the URL carries no credentials")
	}
	clone := filepath.Join(root, "clone")
	cmd := exec.Command("/bin/sh", "-c", "git "+credentialHelper(helperScope(bare))+" clone -q --recurse-submodules -- "+bare+" "+clone)
	cmd.Env = gitEnv(home, root, map[string]string{CredentialUserVariable: user, CredentialPasswordVariable: password})
	out, err := cmd.CombinedOutput()
	if asked, told := srv.counts(elsewhere); asked == 0 || told != 0 {
		t.Errorf("the submodule's host was asked %d times, %d with the token; want asked, never told (%v)\n%s", asked, told, err, out)
	}
	if _, told := srv.counts(srv.host("127.0.0.1")); told == 0 {
		t.Errorf("the superproject was cloned without the token: nothing was tested")
	}
	if _, err := os.Stat(filepath.Join(clone, ".gitmodules")); err != nil {
		t.Errorf("the superproject of the subscription's own host was not cloned: %v\n%s", err, out)
	}
	if strings.Contains(string(out), gitTokenPart) {
		t.Errorf("git's output holds the token:\n%s", out)
	}
}

// The helper answers git, asking as it asks a helper (git credential
// fill), for the URL's own scheme, host and port, whatever their case
// and the path asked for, and for no other scheme, host or port.
func TestAPullTasksHelperAnswersForItsURLsSchemeHostAndPortOnly(t *testing.T) {
	t.Parallel()
	needGit(t)
	home := t.TempDir()
	bare, user, password, _ := gitCredentials("HTTPS://" + gitUser + ":" + gitTokenInURL + "@Git.Example.com:8443/owner/repo.git")
	for asked, answers := range map[string]bool{
		"protocol=https\nhost=git.example.com:8443\npath=owner/other.git\n": true,
		"protocol=https\nhost=GIT.example.com:8443\n":                       true,
		"protocol=http\nhost=git.example.com:8443\n":                        false,
		"protocol=https\nhost=git.example.com\n":                            false,
		"protocol=https\nhost=git.example.com:443\n":                        false,
		"protocol=https\nhost=example.com:8443\n":                           false,
		"protocol=https\nhost=evil.example:8443\n":                          false,
	} {
		cmd := exec.Command("/bin/sh", "-c", "git "+credentialHelper(helperScope(bare))+" credential fill")
		cmd.Env = gitEnv(home, home, map[string]string{CredentialUserVariable: user, CredentialPasswordVariable: password})
		cmd.Stdin = strings.NewReader(asked + "\n")
		out, err := cmd.Output()
		if got := err == nil && strings.Contains(string(out), "password="+gitToken+"\n"); got != answers {
			t.Errorf("asked for\n%sthe helper answered %v (%v), want %v:\n%s", asked, got, err, answers, out)
		}
	}
}
