package crontab

import (
	"net/url"
	"strings"

	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// The variables a pull task's env gives git the user and password its
// URL carried (https://user:token@host/...): they reach git through a
// credential helper reading them, never through a command line, which
// every account of the host reads (ps, /proc/PID/cmdline). A task's env
// may not start with QL_, so these do not.
const (
	CredentialUserVariable     = "SUBSCRIPTION_GIT_USER"
	CredentialPasswordVariable = "SUBSCRIPTION_GIT_PASSWORD"
)

// credentialHelper is the git options the pull gives git the credentials
// by: the helpers the account's configuration names are dropped (the
// empty value), as git used none while the URL carried the credentials,
// then one answering git's "get" with the two variables, which the
// helper's shell expands, so that their values are on no command line.
// That one is git's for the URLs of scope only (credential.SCOPE.helper,
// SCOPE the subscription's scheme, host and port: helperScope): a
// redirect to another host, scheme or port, or a submodule there (the -c
// options reach the git processes git starts), finds no helper and gets
// no credentials, git failing for want of them.
func credentialHelper(scope string) string {
	return "-c credential.helper= -c " + scopedHelper(scope)
}

// envGitName is the shell function the pull script of an http or https
// URL carrying no credentials runs git by (envGit).
const envGitName = "pull_git"

// envGit defines envGitName for the URLs of scope: git given the
// credential helper (credentialHelper, so scoped likewise and the
// account's helpers dropped, which could store what it answers) when the
// task's env gives a credential variable, as from a secret for a URL
// stored without a user, which git would otherwise never read; git as the
// account configures it when the env gives none, its own helpers asked as
// they always were for such a URL. The test is the shell's own builtin,
// so the values are on no command line.
func envGit(scope string) string {
	return envGitName + "() {\n" +
		`  if [ -n "${` + CredentialUserVariable + `:-}${` + CredentialPasswordVariable + `:-}" ]; then` + "\n" +
		"    git " + credentialHelper(scope) + ` "$@"` + "\n" +
		"  else\n" +
		`    git "$@"` + "\n" +
		"  fi\n" +
		"}\n"
}

// helperCommand is the credential helper's command: it answers git's
// "get" with the two variables, expanded by its own shell.
const helperCommand = `!f() { test "$1" = get || return 0; printf "username=%s\npassword=%s\n" "$` +
	CredentialUserVariable + `" "$` + CredentialPasswordVariable + `"; }; f`

// scopedHelper is the helper's git option for the URLs of scope, quoted
// for the shell.
func scopedHelper(scope string) string {
	return shellquote.Quote("credential." + scope + ".helper=" + helperCommand)
}

// unscopedHelper is the helper's option as pull tasks were written
// before it was scoped: git's for every URL, so that a redirect or a
// submodule elsewhere received the token.
var unscopedHelper = shellquote.Quote("credential.helper=" + helperCommand)

// Rescoped is script, a subscription's pull task's of url, with the
// helper written unscoped (unscopedHelper) scoped to url's scheme, host
// and port as pull tasks are written now, and everything else of the
// script as it is (an edit made to it by hand stays); ok is false when
// script holds no unscoped helper, or url is no http or https URL, the
// only ones a pull gives credentials for.
func Rescoped(script, url string) (string, bool) {
	bare, _, _, _ := gitCredentials(url)
	scheme, _, found := strings.Cut(strings.ToLower(bare), "://")
	if !found || (scheme != "http" && scheme != "https") || !strings.Contains(script, unscopedHelper) {
		return script, false
	}
	return strings.ReplaceAll(script, unscopedHelper, scopedHelper(helperScope(bare))), true
}

// helperScope is the scheme, host and port of bare, an http or https URL
// without credentials (gitCredentials), as git matches a credential
// helper's URL against the URL it asks for: https://host:port.
func helperScope(bare string) string {
	i := strings.Index(bare, "://")
	rest := bare[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	return strings.ToLower(bare[:i]) + "://" + rest
}

// CredentialScope is the scheme, host and port the pull task of u gives
// its credentials to (helperScope), lowercased as git matches them; ok is
// false when u is no http or https URL, to which a pull gives none. An
// edit keeps credentials only for a URL of the same scope, so that they
// reach no host they were not set for.
func CredentialScope(u string) (scope string, ok bool) {
	bare, _, _, _ := gitCredentials(u)
	scheme, _, found := strings.Cut(strings.ToLower(bare), "://")
	if !found || (scheme != "http" && scheme != "https") {
		return "", false
	}
	return strings.ToLower(helperScope(bare)), true
}

// gitCredentials is what an http or https URL carries before its host,
// taken out: bare is the URL without it, user and password as git reads
// them (percent-decoded), ok false when the URL carries none or is of
// another scheme (ssh's user is no secret, and git's other transports
// take no password).
func gitCredentials(u string) (bare, user, password string, ok bool) {
	i := strings.Index(u, "://")
	if i < 0 {
		return u, "", "", false
	}
	if scheme := strings.ToLower(u[:i]); scheme != "http" && scheme != "https" {
		return u, "", "", false
	}
	rest := u[i+3:]
	host := rest
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		host = rest[:j]
	}
	at := strings.LastIndex(host, "@")
	if at < 0 {
		return u, "", "", false
	}
	user, password, _ = strings.Cut(host[:at], ":")
	return u[:i+3] + rest[at+1:], unescape(user), unescape(password), true
}

// unescape is s percent-decoded as git decodes a URL's user and password,
// s itself when it is no valid escape.
func unescape(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}

// CredentialVariables are the names of the variables a pull task's env
// gives git its URL's credentials by, so that a change of its URL
// replaces them, or removes them when the new URL carries none.
func CredentialVariables() []string {
	return []string{CredentialUserVariable, CredentialPasswordVariable}
}

// credentialEnv is the env a pull or download task's script reads its
// URL's credentials from (CredentialUserVariable,
// CredentialPasswordVariable), nil when the URL carries none.
func credentialEnv(u string) map[string]string {
	_, user, password, ok := gitCredentials(u)
	if !ok {
		return nil
	}
	return map[string]string{CredentialUserVariable: user, CredentialPasswordVariable: password}
}

// bareURL is u without the user and password an http or https URL
// carries, as a note may show it.
func bareURL(u string) string {
	bare, _, _, _ := gitCredentials(u)
	return bare
}

// CredentialsFault says why url's user and password would not be read as
// such, "" when they would or it carries none. In https://u:a/b@host/o/r
// the '/' inside the password ends the host: git reads a host "u" and
// cannot fetch, and gitCredentials (and the pages' masking of the URL)
// find no credentials, so the password would stay in the pull task's
// script, its labels and the audit trail. What looks so is refused: a
// host with no '@' and an '@' further on with a ':' before it (an '@' in
// a path after a port, rare in a repository's URL, is written %40 then).
// The sentence never repeats the URL.
func CredentialsFault(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := u[i+3:]
	host := rest
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		host = rest[:j]
	}
	at := strings.LastIndex(rest, "@")
	if strings.Contains(host, "@") || at < 0 || !strings.Contains(rest[:at], ":") {
		return ""
	}
	return "the repository URL's user and password hold a '/', '?' or '#', which ends the host's name there, so git would not read them as a user and password: " +
		"write those characters percent-encoded (%2F, %3F, %23; an '@' in the path as %40)"
}
