package crontab

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// ScriptsDirVariable is the variable a single node and a cluster worker
// give every command they start: their scripts folder (--scripts-dir). A
// pull task writes into it.
const ScriptsDirVariable = "QL_SCRIPTS_DIR"

// clusterCopies says where a pull or download task's copy is on a
// cluster, where it runs on whichever worker takes it.
const clusterCopies = "On a cluster the Run is on whichever worker takes it, and each worker keeps its own copy: " +
	"pin the task with placement.labels to the worker that runs the scripts' tasks (pinned with the same labels), or make one such task per worker, each pinned to its own"

// scriptsDirSetBy says who sets the scripts folder a pull task writes
// into and, where a cluster is served (not edge), where its copy is.
func scriptsDirSetBy(edge bool) string {
	if edge {
		return "the server sets it (its --scripts-dir)"
	}
	return "a single node and a cluster worker set it (their --scripts-dir). " + clusterCopies
}

// needScriptsDir is the first line of a pull task: the Run fails, saying
// why, when the scripts folder is not set, rather than write into the
// fresh working directory removed after it. It names no server or worker:
// the script is the same on every profile, so a file exported from
// ql-edge and applied on a cluster changes nothing, and ql-edge's Runs
// name no worker.
const needScriptsDir = `: "${` + ScriptsDirVariable + `:?is empty: the QingLong that started this task gives its commands no scripts folder: upgrade it}"` + "\n"

// subscription is the qinglong panel's "ql repo URL WHITELIST BLACKLIST
// DEPENDENCE BRANCH": the repository it pulls and the regular expressions
// choosing which of its scripts become tasks.
type subscription struct {
	URL, Match, Exclude, Dependence, Branch string
	// Owner and Repo are the URL's last two path segments, as the panel
	// reads them; Folder is where the panel keeps the scripts:
	// OWNER_REPO, with _BRANCH when a branch is named.
	Owner, Repo, Folder string
}

// parseSubscription reads the words after "ql repo"; why says what is
// wrong when they name no repository.
func parseSubscription(words []string) (s subscription, why string) {
	if len(words) == 0 {
		return s, "ql repo names no repository: write the repository's URL after it"
	}
	arg := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	s = subscription{URL: words[0], Match: arg(1), Exclude: arg(2), Dependence: arg(3), Branch: arg(4)}
	if why := BranchFault(s.Branch); why != "" {
		return s, why
	}
	if why := CredentialsFault(s.URL); why != "" {
		return s, why
	}
	// The panel takes the repository from the last path segment without
	// its extension (.git), the owner from the one before it, after any
	// "host:" of an scp-like URL (git@github.com:owner/repo.git).
	trimmed := strings.TrimRight(s.URL, "/")
	slash := strings.LastIndexAny(trimmed, "/:")
	if slash < 0 || !ownerAndRepo(s.URL) {
		return s, NoOwnerAndRepo(s.URL)
	}
	s.Repo = strings.TrimSuffix(trimmed[slash+1:], path.Ext(trimmed[slash+1:]))
	head := trimmed[:slash]
	s.Owner = head[strings.LastIndexAny(head, "/:")+1:]
	// The panel also drops what is before the owner's last dot.
	s.Owner = s.Owner[strings.LastIndex(s.Owner, ".")+1:]
	if s.Owner == "" || s.Repo == "" || s.Owner == ".." || s.Repo == ".." {
		return s, NoOwnerAndRepo(s.URL)
	}
	s.Folder = s.Owner + "_" + s.Repo
	if s.Branch != "" {
		s.Folder += "_" + s.Branch
	}
	return s, ""
}

// FoldersShare says whether two subscriptions pulling into the folders a
// and b (each under the scripts folder, as RepoPull.Folder names them)
// would share files: the same folder, or one inside the other (a branch
// may hold a '/': o/r on branch a/b pulls into o_r_a/b, inside o/r on
// branch a's o_r_a). Such two would pull into one clone, and deleting one
// with its folder would delete the other's scripts: the converter leaves
// the second such ql repo line out and the Subscriptions form refuses the
// second such subscription, both by this rule. Case aside: O_r and o_r
// are one folder where the file system ignores case (macOS, Windows, a
// volume of theirs mounted), and a scripts folder may be moved there.
func FoldersShare(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// NoOwnerAndRepo says that url (as shown) names no owner and repository:
// the converter's words for such a ql repo line and the Subscriptions
// form's for such a URL, so that the two refuse the same URLs alike.
func NoOwnerAndRepo(url string) string {
	return fmt.Sprintf("the repository URL %q names no owner and repository, which the subscription's name and folder are made of: "+
		"write it as https://host/OWNER/REPO.git", url)
}

// ownerAndRepo says whether u's path has two segments at least, the
// owner and the repository: the panel would take the host for the owner
// of https://host/repo, and pull two such repositories of one host into
// one folder.
func ownerAndRepo(u string) bool {
	path := u
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		j := strings.Index(rest, "/")
		if j < 0 {
			return false
		}
		path = rest[j:]
	} else {
		path = u[strings.Index(u, ":")+1:]
	}
	n := 0
	for seg := range strings.SplitSeq(path, "/") {
		if seg != "" {
			n++
		}
	}
	return n >= 2
}

// pullScript is the task's command: clone the repository into its folder
// the first time, then fetch the branch's head (the remote's HEAD when no
// branch is named) shallowly and reset the clone to it, so that a
// force-pushed repository updates too; changes made in the folder to the
// repository's files are lost at the next pull, files it does not track
// are kept. The URL and the branch come after "--", so that git reads
// neither as an option (--upload-pack=COMMAND runs COMMAND), whatever
// line of an imported crontab they came from.
// An http(s) URL's credentials are left out of it and given to git by
// the task's env (credentialEnv) through credentialHelper, answering git
// for the URL's own scheme, host and port only, so that they are on no
// command line, not in the clone's .git/config, and sent nowhere else; a
// fetch writes the URL without them there too, over a clone an earlier
// script made with them.
// An http(s) URL carrying none is pulled through envGit: a task whose env
// gives the credential variables (from a secret, its URL stored without
// a user) has git read them through the same helper.
func (s subscription) pullScript() string {
	dir := `"$` + ScriptsDirVariable + `"/` + shellquote.Quote(s.Folder)
	bare, _, _, credentials := gitCredentials(s.URL)
	url := shellquote.Quote(bare)
	ref, branch := "HEAD", ""
	if s.Branch != "" {
		ref, branch = shellquote.Quote(s.Branch), " --branch "+shellquote.Quote(s.Branch)
	}
	git, scrub, define := "git", "", ""
	_, web := CredentialScope(bare)
	switch {
	case credentials:
		git = "git " + credentialHelper(helperScope(bare))
		scrub = "  git -C " + dir + " config remote.origin.url " + url + "\n"
	case web:
		git, define = envGitName, envGit(helperScope(bare))
	}
	return "set -eu\n" + needScriptsDir + define +
		"if [ -d " + dir + "/.git ]; then\n" + scrub +
		"  " + git + " -C " + dir + " fetch --depth 1 -- " + url + " " + ref + "\n" +
		"  git -C " + dir + " reset --hard FETCH_HEAD\n" +
		"else\n" +
		"  " + git + " clone --depth 1" + branch + " -- " + url + " " + dir + "\n" +
		"fi\n"
}

// note is what is said of the pull task: where it pulls to, what it needs,
// and the command (of binary) that makes tasks of its scripts, with the
// panel's whitelist and blacklist; edge names no cluster.
func (s subscription) note(binary string, edge bool) (string, []string) {
	command := binary + " crontab scripts \"$" + ScriptsDirVariable + "\"/" + shellquote.Quote(s.Folder) + s.flags()
	bare, _, _, credentials := gitCredentials(s.URL)
	params := []string{"url", bare, "folder", s.Folder, "command", command}
	why := fmt.Sprintf("ql repo becomes a task pulling %s into \"$%s/%s\": a shallow clone on its first Run, then a fetch of the branch's head and a hard reset to it "+
		"(a force-pushed repository still updates; edits to its files there are lost). Its Runs fail when %s is empty; %s. A pull adds no tasks: list its scripts' tasks with %s and apply that file",
		bare, ScriptsDirVariable, s.Folder, ScriptsDirVariable, scriptsDirSetBy(edge), command)
	if credentials {
		why += fmt.Sprintf("; the URL's user and password are in the task's env (%s, %s), which git reads through a credential helper, so that they are on no command line nor in the clone's .git/config",
			CredentialUserVariable, CredentialPasswordVariable)
	}
	if s.Dependence != "" {
		why += fmt.Sprintf("; the dependence files (%s) need nothing: the whole repository is in the folder", s.Dependence)
	}
	return why, params
}

// flags are the panel's whitelist and blacklist as ql crontab scripts'
// flags.
func (s subscription) flags() string {
	out := ""
	if s.Match != "" {
		out += " --match " + shellquote.Quote(s.Match)
	}
	if s.Exclude != "" {
		out += " --exclude " + shellquote.Quote(s.Exclude)
	}
	return out
}

// rawCredentialsWhy is what is said of a ql raw whose URL's user and
// password would not be read as such (CredentialsFault), never repeating
// the URL.
const rawCredentialsWhy = "ql raw's URL has a user and password holding a '/', '?' or '#', which ends the host's name there, so the download would not read them as a user and password and the password would stay in the task: " +
	"write those characters percent-encoded (%2F, %3F, %23; an '@' in the path as %40); the line is not converted"

// rawFile is the qinglong panel's "ql raw URL": one file downloaded into
// the scripts folder as raw_NAME, NAME the URL's last path segment.
type rawFile struct{ URL, File string }

// parseRaw reads the words after "ql raw"; why says what is wrong when
// they name no file.
func parseRaw(words []string) (r rawFile, why string) {
	if len(words) == 0 {
		return r, "ql raw names no file: write the file's URL after it"
	}
	u := words[0]
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	name := u[strings.LastIndex(u, "/")+1:]
	if !strings.Contains(words[0], "://") || name == "" || name == "." || name == ".." {
		return r, fmt.Sprintf("ql raw's %q is no file URL: write the URL of the file itself (https://host/path/jd_x.js)", words[0])
	}
	return rawFile{URL: words[0], File: "raw_" + name}, ""
}

// downloadScript downloads the file beside its old copy and moves it over
// that only when the download succeeded, so a failed one keeps the file
// the last one fetched, as the panel does.
// A URL carrying a user and password is downloaded without them, curl
// reading them from its standard input as a config line (curlUser) made
// of the task's env, so that they are on no command line.
func (r rawFile) downloadScript() string {
	file := `"$` + ScriptsDirVariable + `"/` + shellquote.Quote(r.File)
	bare, _, _, credentials := gitCredentials(r.URL)
	curl := "curl -fsSL -o " + file + ".new " + shellquote.Quote(bare)
	if credentials {
		curl = curlUser + " | curl -K - -fsSL -o " + file + ".new " + shellquote.Quote(bare)
	}
	return "set -eu\n" + needScriptsDir +
		`mkdir -p "$` + ScriptsDirVariable + `"` + "\n" +
		curl + " || { rm -f " + file + ".new; exit 1; }\n" +
		"mv " + file + ".new " + file + "\n"
}

// curlUser writes curl's config line `user = "USER:PASSWORD"` of the
// credential variables: printf is the shell's own, and sed escapes the
// config's quote and backslash reading the values on its standard input,
// so that neither value is ever a process's argument.
var curlUser = `printf '%s:%s' "$` + CredentialUserVariable + `" "$` + CredentialPasswordVariable + `" | sed 's/[\\"]/\\&/g; s/^/user = "/; s/$/"/'`

// note is what is said of the download task, naming the command (of
// binary) that makes a task of the file; edge names no cluster.
func (r rawFile) note(binary string, edge bool) (string, []string) {
	command := binary + " crontab scripts \"$" + ScriptsDirVariable + "\" --match " + shellquote.Quote("^"+regexp.QuoteMeta(r.File)+"$")
	return fmt.Sprintf("ql raw becomes a task downloading %s into \"$%s/%s\" with curl (a failed download keeps the last copy). Its Runs fail when %s is empty; "+
			"%s. A download adds no task: list the file's with %s and apply that file",
			bareURL(r.URL), ScriptsDirVariable, r.File, ScriptsDirVariable, scriptsDirSetBy(edge), command),
		[]string{"url", bareURL(r.URL), "file", r.File, "command", command}
}

// RepoPull is the pull task of a subscription: its name
// (repo-OWNER-REPO, with -BRANCH when a branch is named, made a name as
// the converter makes it: lower case, other characters '-'), display title
// ("" when the URL's words make none a title may be), the folder of the
// scripts folder it pulls into and its script.
type RepoPull struct {
	Name, Title, Folder, Script string
	// Env is the task's env its script reads its URL's credentials from
	// (CredentialUserVariable, CredentialPasswordVariable), nil when the
	// URL carries none.
	Env map[string]string
}

// PullOf is the pull task of the subscription of url and branch ("" the
// remote's HEAD), named and written as the converter does for "ql repo
// URL ... BRANCH"; why says what is wrong when url names no owner and
// repository.
func PullOf(url, branch string) (RepoPull, string) {
	s, why := parseSubscription([]string{url, "", "", "", branch})
	if why != "" {
		return RepoPull{}, why
	}
	p := s.repoPull()
	p.Name = cleanName(p.Name)
	return p, ""
}

func (s subscription) repoPull() RepoPull {
	p := RepoPull{Name: "repo-" + s.Owner + "-" + s.Repo, Title: s.Owner + "/" + s.Repo, Folder: s.Folder, Script: s.pullScript(), Env: credentialEnv(s.URL)}
	if s.Branch != "" {
		p.Name += "-" + s.Branch
		p.Title += " (" + s.Branch + ")"
	}
	if validate.Title("title", p.Title) != nil {
		p.Title = ""
	}
	return p
}

// The labels of a subscription's pull task, saying what it subscribes
// to: a task labelled LabelURL is a subscription, which the console's
// Subscriptions page lists.
const (
	LabelPrefix  = "subscription/"
	LabelURL     = LabelPrefix + "url"
	LabelBranch  = LabelPrefix + "branch"
	LabelMatch   = LabelPrefix + "match"
	LabelExclude = LabelPrefix + "exclude"
)

// SubscriptionLabels are the labels of the pull task of url, branch,
// match and exclude, an empty one left out; nil when a value is longer
// than a label's may be, so that the task is written all the same,
// without them (no subscription then).
func SubscriptionLabels(url, branch, match, exclude string) map[string]string {
	out := map[string]string{}
	for k, v := range map[string]string{LabelURL: url, LabelBranch: branch, LabelMatch: match, LabelExclude: exclude} {
		if len(v) > task.MaxLabelLen {
			return nil
		}
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// pull is the task a ql repo or ql raw line becomes, with its labels (a
// subscription's) and, of a ql repo, the folder it pulls into.
type pull struct {
	name, title, script, why, folder string
	// pulls and downloads are the URL, without its credentials, of a ql
	// repo's repository and of a ql raw's file.
	pulls, downloads string
	code             Code
	params           []string
	labels, env      map[string]string
}

// panelPull is the task the panel's "ql repo ..." or "ql raw ..." command
// becomes, its note naming binary's commands; why says what is wrong when
// it names nothing to pull, with p's code and params saying which
// sentence that is when it is not CodePanelCommand's; edge names no
// cluster.
func panelPull(command, binary string, edge bool) (p pull, why string) {
	words, ok := shellWords(command)
	if !ok {
		return p, "the command's quotes are unbalanced: close each ' and \" as the panel's shell would read them"
	}
	switch words[1] {
	case "repo":
		s, why := parseSubscription(words[2:])
		if field, char, unseen := s.unseenFault(); unseen != "" {
			return pull{code: CodeRepoCharacter, params: []string{"field", field, "char", char}}, unseen
		}
		if why != "" && BranchFault(s.Branch) != "" {
			return pull{code: CodeRepoBranch, params: []string{"value", s.Branch}}, why
		}
		if why != "" && CredentialsFault(s.URL) != "" {
			return pull{code: CodeRepoCredentials}, why
		}
		if why != "" && len(words) > 2 {
			return pull{code: CodeRepoURL, params: []string{"value", words[2]}}, why
		}
		if why != "" {
			return p, why
		}
		rp := s.repoPull()
		p = pull{name: rp.Name, title: rp.Title, script: rp.Script, env: rp.Env, folder: rp.Folder, code: CodePanelRepo, labels: SubscriptionLabels(s.URL, s.Branch, s.Match, s.Exclude),
			pulls: bareURL(s.URL)}
		p.why, p.params = s.note(binary, edge)
		return p, ""
	default:
		if len(words) > 2 {
			if char, unseen := rawUnseenFault(words[2]); unseen != "" {
				return pull{code: CodeRawCharacter, params: []string{"field", "url", "char", char}}, unseen
			}
			// The download splits a user and password off the URL as git's
			// helper does: one it cannot read would stay in the script.
			if CredentialsFault(words[2]) != "" {
				return pull{code: CodeRawCredentials}, rawCredentialsWhy
			}
		}
		r, why := parseRaw(words[2:])
		if why != "" {
			return p, why
		}
		p = pull{name: "raw-" + strings.TrimSuffix(strings.TrimPrefix(r.File, "raw_"), path.Ext(r.File)), title: r.File, script: r.downloadScript(), env: credentialEnv(r.URL), code: CodePanelRaw, downloads: bareURL(r.URL)}
		p.why, p.params = r.note(binary, edge)
		return p, ""
	}
}

// shellWords splits a command into words as a POSIX shell reads its
// quotes: '...' literally, "..." with \ escaping " \ $ and `, and \ outside
// quotes escaping the next character. ok is false for an unclosed quote.
func shellWords(s string) (words []string, ok bool) {
	var b strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, b.String()), false
				b.Reset()
			}
			continue
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, true
}
