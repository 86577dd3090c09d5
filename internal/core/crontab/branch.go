package crontab

import (
	"fmt"
	"strings"
)

// BranchFault says why git would refuse b as a branch name (git
// check-ref-format's rules), "" when it takes it or b is empty (the
// remote's default). A subscription's branch goes into its folder's name
// and onto git's command line, so the converter and the Subscriptions form
// refuse alike one that could be read as an option or lead out of the
// scripts folder (`..`, a leading `/`).
func BranchFault(b string) string {
	if b == "" {
		return ""
	}
	bad := len(b) > 200 || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasPrefix(b, ".") ||
		strings.HasSuffix(b, "/") || strings.HasSuffix(b, ".") || strings.HasSuffix(b, ".lock") ||
		strings.Contains(b, "..") || strings.Contains(b, "//") || strings.Contains(b, "@{") || strings.Contains(b, "/.") ||
		strings.ContainsAny(b, "~^:?*[\\") || strings.ContainsFunc(b, func(r rune) bool { return r <= ' ' || r == 0x7f })
	if !bad {
		return ""
	}
	return fmt.Sprintf("the branch %q is no name git takes for a branch (no spaces, ~ ^ : ? * [ \\, .., //, nor a leading - / or .): "+
		"write the branch as git names it, such as main, or leave it empty for the repository's default", b)
}
