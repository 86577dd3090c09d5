package crontab

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// ScriptsHeader is the comment a file of tasks read from scripts' headers
// starts with.
const ScriptsHeader = `# Tasks read from the scripts' header comments (their cron and new Env title),
# one per script, run with its interpreter in its folder. Nothing here follows
# the folder by itself: after a pull, read it again and apply the new file.
`

// ScriptOptions say which scripts of a folder become tasks.
type ScriptOptions struct {
	// Zone is the time zone of every trigger.
	Zone string
	// Match and Exclude are the panel's whitelist and blacklist: a script
	// whose path under the folder matches Exclude, or does not match
	// Match, is left out without a word. nil matches everything (Match)
	// or nothing (Exclude).
	Match, Exclude *regexp.Regexp
}

// Skipped is a script that became no task, and why: Code is which
// sentence Why is, Params the values it names and Err the refusal it
// gives the words of (codes.go's script codes).
type Skipped struct {
	Path, Why string
	Code      Code
	Params    map[string]string
	Err       error
}

// scriptExtensions are the extensions of the scripts the panel runs.
var scriptExtensions = []string{".js", ".py", ".sh", ".ts"}

// Scripts reads each script under root (fsys is root's files, root its
// absolute path as the server sees it) and makes one task and trigger per
// script whose header comment gives a cron, in the path order of the
// files, so that reading the same folder again gives the same entries.
// Every other script read is in the skipped list, saying why. The first
// TypeScript script made a task is noted in the result's problems, as the
// panel's task SCRIPT.ts is: its task runs it with tsx, which must be
// installed.
func Scripts(fsys fs.FS, root string, o ScriptOptions) (Result, []Skipped, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && slices.Contains(scriptExtensions, path.Ext(p)) &&
			(o.Match == nil || o.Match.MatchString(p)) && (o.Exclude == nil || !o.Exclude.MatchString(p)) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return Result{}, nil, fmt.Errorf("read the scripts folder %s: %w", root, err)
	}
	slices.Sort(paths)
	st := state{names: map[string]int{}}
	buf := make([]byte, HeaderBytes)
	var res Result
	var skipped []Skipped
	for _, p := range paths {
		text, err := readStart(fsys, p, buf)
		if err != nil {
			return Result{}, nil, fmt.Errorf("read the script %s: %w", p, err)
		}
		h := readHeader(text, path.Base(p))
		if h.cron == "" {
			skipped = append(skipped, Skipped{Path: p, Code: CodeScriptNoCron,
				Why: "its header gives no cron (cron: EXPR, cron \"EXPR\", or EXPR before the script's name, as the panel reads them): write its task by hand"})
			continue
		}
		fields := strings.Fields(h.cron)
		fields[len(fields)-1] = sundayAsZero(fields[len(fields)-1])
		expr := strings.Join(fields, " ")
		if err := checkCron(expr, o.Zone); err != nil {
			skipped = append(skipped, Skipped{Path: p, Code: CodeScriptCron, Params: map[string]string{"cron": h.cron}, Err: err,
				Why: fmt.Sprintf("its header's cron %q is refused: %v", h.cron, err)})
			continue
		}
		base := cleanName(strings.ReplaceAll(strings.TrimSuffix(p, path.Ext(p)), "/", "-"))
		if base == "" {
			base = "script"
		}
		script := interpreters[path.Ext(p)] + " " + ScriptWord(path.Base(p))
		res.Entries = append(res.Entries, Entry{Name: st.unique(base), Title: h.title, Cron: expr, Timezone: o.Zone, Shell: "/bin/sh",
			Script: script, WorkingDir: filepath.Join(root, filepath.FromSlash(path.Dir(p)))})
		if path.Ext(p) == ".ts" && !st.typeScriptNoted {
			st.typeScriptNoted = true
			res.Problems = append(res.Problems, Problem{Text: p, Kind: Noted, Code: CodeScriptTypeScript, Params: map[string]string{"script": script},
				Why: "its task is written as " + script + ", here and on every later .ts script: " + typeScriptInstall})
		}
	}
	res.Header = ScriptsHeader
	return res, skipped, nil
}

// HeaderBytes bounds what is read of each script for its header: its
// first 64 KiB, cut at the last whole line. A header is the comment at a
// script's top (the panel's scripts give their cron and new Env title in
// their first lines), and a bundled script is megabytes of code after it,
// which read whole made a folder of them slow to preview.
const HeaderBytes = 64 << 10

// readStart is the first HeaderBytes of the script p, read into buf, to
// its last whole line when the script is longer.
func readStart(fsys fs.FS, p string, buf []byte) (string, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close() //nolint:errcheck // read only
	n, err := io.ReadFull(f, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return string(buf[:n]), nil
	case err != nil:
		return "", err
	}
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		n = i
	}
	return string(buf[:n]), nil
}

// checkCron is cron's refusal of expr in zone, or of its steps.
func checkCron(expr, zone string) error {
	if _, err := cron.Parse(expr, zone); err != nil {
		return err
	}
	return cron.CheckSteps(expr)
}

// header is what a script's header comment says of its task.
type header struct{ cron, title string }

var (
	// cronFields is five or six cron fields, as the panel's scripts write
	// them: digits, *, ?, and , - / between them.
	cronFields = `((?:[0-9*?][0-9*?,/-]*[ \t]+){4,5}[0-9*?][0-9*?,/-]*)`
	// cronBeforeName: a cron ending at a space, comma or quote, the
	// script's name later on the line (Quantumult X, Loon, Surge and the
	// panel's `cron "EXPR" name.js, tag=...`).
	// It starts a word: a version's "1.2" before it is no minute.
	cronBeforeName = regexp.MustCompile(`(?:^|[^0-9A-Za-z.*?,/-])` + cronFields + `[ \t,"']`)
	// cronColon: "cron: EXPR".
	cronColon = regexp.MustCompile(`cron:[ \t]*["']?` + cronFields)
	// cronQuoted: `cron "EXPR"`.
	cronQuoted = regexp.MustCompile(`cron[ \t]+["']` + cronFields + `["']`)
	// envTitle: new Env('TITLE'), the name the panel shows.
	envTitle = regexp.MustCompile("new[ \t]+Env\\([ \t]*['\"`]([^'\"`\n]+)['\"`]")
	// tagTitle: tag=TITLE on the cron's line.
	tagTitle = regexp.MustCompile(`tag[ \t]*=[ \t]*([^,\n"']+)`)
)

// readHeader reads a script's cron and title as the panel does: first a
// line where a cron comes before the script's name, then a "cron:" line,
// then a `cron "EXPR"` line, the first such line of each in file order;
// the title from new Env('…'), else the cron line's tag=….
func readHeader(text, name string) header {
	var h header
	lines := strings.Split(text, "\n")
	cronLine := ""
	for _, l := range lines {
		// Only a line naming the script can hold its cron before its
		// name: the others are not given to the regular expression.
		if !strings.Contains(l, name) {
			continue
		}
		if m := cronBeforeName.FindStringSubmatchIndex(l); m != nil && strings.Contains(l[m[3]:], name) {
			h.cron, cronLine = l[m[2]:m[3]], l
			break
		}
	}
	for _, re := range []*regexp.Regexp{cronColon, cronQuoted} {
		for _, l := range lines {
			if h.cron != "" {
				break
			}
			if m := re.FindStringSubmatch(l); m != nil {
				h.cron, cronLine = m[1], l
			}
		}
	}
	h.cron = strings.Join(strings.Fields(h.cron), " ")
	if m := envTitle.FindStringSubmatch(text); m != nil {
		h.title = strings.TrimSpace(m[1])
	} else if m := tagTitle.FindStringSubmatch(cronLine); m != nil {
		h.title = strings.TrimSpace(m[1])
	}
	if validate.Title("title", h.title) != nil {
		h.title = ""
	}
	return h
}
