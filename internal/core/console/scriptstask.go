package console

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// interpreters run a script by its extension, as the 青龙 panel does;
// each names what the host needs (a catalogue key).
var interpreters = map[string]struct{ command, needs string }{
	".js": {"node", "scr.needs.node"},
	".py": {"python3 -u", "scr.needs.python"},
	".sh": {"bash", "scr.needs.bash"},
	".ts": {"tsx", "scr.needs.tsx"},
}

// newTaskFromScript is the address of the New task form prefilled to run
// the script at p of the folder dir: its interpreter, started in the
// script's own folder (where a script finds the files beside it), and a
// task named after the file; with what the host needs to run it in l.
// Both are "" for a file of no extension known here.
func newTaskFromScript(l, dir, p string) (href, needs string) {
	base := path.Base(p)
	ext := strings.ToLower(path.Ext(base))
	in, ok := interpreters[ext]
	if !ok {
		return "", ""
	}
	q := url.Values{
		"task":    {taskName(strings.TrimSuffix(base, path.Ext(base)))},
		"script":  {in.command + " " + crontab.ScriptWord(base)},
		"workdir": {filepath.Join(dir, filepath.FromSlash(scripts.Parent(p)))},
	}
	return "/definitions/new?" + q.Encode(), tr(l, in.needs)
}

// taskName is a task name made of a file's name: lower case, each
// character a name may not hold a '-', cut to the longest a name may be;
// "" when nothing of it is left, which the form then asks for.
func taskName(file string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(file) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' || r == '.' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteRune('-')
		}
	}
	name := b.String()
	if len(name) > validate.MaxNameLen {
		name = name[:validate.MaxNameLen]
	}
	return strings.TrimFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
}
