package console

import (
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/crontab"
)

// commandShown is what the panel import's Command column shows of e's
// script in language l, and the whole script when that is not it: a
// subscription's pull task as the repository it pulls (and its branch), a
// download task as the file it downloads, each URL without its
// credentials, and any other script of several lines as its first line
// that does something; a script of one line is shown as it is.
func commandShown(l string, e crontab.Entry) (shown, whole string) {
	switch {
	case e.Pulls != "" && e.Labels[crontab.LabelBranch] != "":
		return fmt.Sprintf(tr(l, "qlp.pulls.branch"), e.Pulls, e.Labels[crontab.LabelBranch]), e.Script
	case e.Pulls != "":
		return fmt.Sprintf(tr(l, "qlp.pulls"), e.Pulls), e.Script
	case e.Downloads != "":
		return fmt.Sprintf(tr(l, "qlp.downloads"), e.Downloads), e.Script
	case !strings.Contains(strings.TrimSpace(e.Script), "\n"):
		return strings.TrimSpace(e.Script), ""
	}
	first := ""
	for line := range strings.SplitSeq(e.Script, "\n") {
		line = strings.TrimSpace(line)
		if first == "" {
			first = line
		}
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "set -") {
			continue
		}
		return line + " …", e.Script
	}
	return first + " …", e.Script
}
