package console

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/deps"
)

// english is a run of English words in a sentence: what a Chinese
// sentence shows only of the user's data or of names to type as they are.
var english = regexp.MustCompile(`\b(or|with|is|not|it|its|the|and|has|no|than)\b`)

// The Dependencies page's refusals say in Chinese what comes from a fixed
// set (what to install, why a name is refused, why the project is not the
// page's, the examples), and show what the user wrote as it is.
func TestADependencyRefusalSaysItsFixedPartsInChineseAndTheUsersAsWritten(t *testing.T) {
	none := func(string) (string, error) { return "", errors.New("not found") }
	long := "a" + strings.Repeat("b", deps.MaxSpec)
	cases := map[string]struct {
		err  error
		want []string
	}{
		"too long":    {err: parseErr(deps.Node, long), want: []string{long, "超过 214 个字符", "axios、@scope/name 或 name@1.2.3"}},
		"not a name":  {err: parseErr(deps.Python, "Bad Name"), want: []string{"Bad Name", "不是该安装程序接受的软件包名", "requests[socks]"}},
		"linux":       {err: parseErr(deps.Linux, "UPPER"), want: []string{"UPPER", "curl 或 curl=8.5.0-r0"}},
		"concurrent":  {err: deps.ProjectTaken(deps.TakenConcurrent, "english", "runs", 3), want: []string{"允许 3 个运行同时进行"}},
		"uncapped":    {err: deps.ProjectTaken(deps.TakenUncapped, "english"), want: []string{"不限制同时进行的运行数"}},
		"unlabelled":  {err: deps.ProjectTaken(deps.TakenUnlabelled, "english", "task", "node", "label", deps.KindLabel+": node"), want: []string{"任务 node", "dependencies/kind: node"}},
		"no npm":      {err: installerErr(deps.Host{LookPath: none, Root: true}, deps.Node), want: []string{"npm", "Node.js 和 npm"}},
		"no pip":      {err: installerErr(deps.Host{LookPath: none, Root: true}, deps.Python), want: []string{"pip3", "Python 3 和 pip"}},
		"no apk, apt": {err: installerErr(deps.Host{LookPath: none, Root: true}, deps.Linux), want: []string{"apk 或 apt-get", "（Debian、Ubuntu）"}},
		"mirror url":  {err: mirrorErr(deps.Mirror{Kind: deps.Python, Proxy: "http://u:pw@proxy.example"}), want: []string{"代理“http://proxy.example”", "含有用户名或密码", "http://127.0.0.1:7890"}},
		"mirror kind": {err: mirrorErr(deps.Mirror{Kind: deps.Linux}), want: []string{"linux 软件包不设镜像"}},
		"unwritable":  {err: deps.FolderUnwritable("nobody", "/ql/scripts", "owned by uid 0, mode -rwxr-xr-x", "chown nobody /ql/scripts"), want: []string{"账户 nobody", "/ql/scripts", "`chown nobody /ql/scripts`"}},
	}
	for what, c := range cases {
		s, ok := sentence("zh", c.err)
		if !ok {
			t.Errorf("%s: no Chinese sentence for %v", what, c.err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: %q lacks %q", what, s, w)
			}
		}
		if m := english.FindString(s); m != "" {
			t.Errorf("%s: %q shows the English %q", what, s, m)
		}
	}
}

func parseErr(k deps.Kind, spec string) error {
	_, err := deps.Parse(k, spec)
	return err
}

func mirrorErr(m deps.Mirror) error {
	_, err := deps.CheckMirror(m)
	return err
}

func installerErr(h deps.Host, k deps.Kind) error {
	_, err := h.Installer(k)
	return err
}
