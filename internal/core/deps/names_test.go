package deps

import (
	"errors"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Each ecosystem's installer is given only what is one package of it:
// scoped npm names with versions, pip requirement specifiers with
// extras and comparisons, apk and apt names with =version; a word
// beginning with '-' (an option), a path, a URL or shell characters is
// refused, naming what a package looks like.
func TestPackageSpecifiersAreCheckedPerEcosystem(t *testing.T) {
	accepted := map[Kind]map[string]string{
		Node:   {"axios": "axios", "@scope/x": "@scope/x", "@scope/x@1.2": "@scope/x", "dayjs@^1.11": "dayjs", "lodash@latest": "lodash", "x@>=1": "x"},
		Python: {"requests": "requests", "requests==2.31.0": "requests", "x>=1,<2": "x", "httpx[socks]": "httpx", "Pillow~=10.0": "pillow", "typing_extensions": "typing-extensions"},
		Linux:  {"curl": "curl", "py3-pip": "py3-pip", "libstdc++": "libstdc++", "curl=8.5.0-r0": "curl"},
	}
	for k, specs := range accepted {
		for spec, name := range specs {
			p, err := Parse(k, spec)
			if err != nil || p.Name != name || p.Spec != spec {
				t.Errorf("%s %q: %+v, %v; want name %q", k, spec, p, err, name)
			}
		}
	}
	refused := map[Kind][]string{
		Node:   {"-g", "--prefix=/", "Axios", "../x", "x y", "x;id", "$(id)", "`id`", "x|y", "git+https://x/y", "/abs", "@scope", "x@", strings.Repeat("a", 215)},
		Python: {"-r", "--index-url=http://x", "x @ https://y", "x; python_version<'3'", "x==1 ", "./pkg", "x[", "x==", "$HOME"},
		Linux:  {"-y", "Curl", "curl;id", "../x", "curl x", "curl="},
	}
	for k, specs := range refused {
		for _, spec := range specs {
			if _, err := Parse(k, spec); qlerror.ReasonOf(err) != RefusalNameInvalid {
				t.Errorf("%s %q: %v; want %s", k, spec, err, RefusalNameInvalid)
			}
		}
	}
}

// A form's list is split on spaces, lines and (but in a Python
// requirement, which joins comparisons and extras with them) commas; a
// name given twice is installed once, as written last.
func TestAListIsSplitPerEcosystemAndANameTwiceIsOnePackage(t *testing.T) {
	pkgs, err := ParseList(Node, "axios, dayjs\naxios@1.6.0")
	if err != nil || len(pkgs) != 2 || pkgs[0].Spec != "axios@1.6.0" || pkgs[1].Spec != "dayjs" {
		t.Errorf("node list: %+v, %v", pkgs, err)
	}
	pkgs, err = ParseList(Python, "x>=1,<2 y[a,b]")
	if err != nil || len(pkgs) != 2 || pkgs[0].Spec != "x>=1,<2" || pkgs[1].Spec != "y[a,b]" {
		t.Errorf("python list: %+v, %v", pkgs, err)
	}
	if _, err := ParseList(Node, " \n,"); qlerror.ReasonOf(err) != RefusalNone {
		t.Errorf("an empty list: %v; want %s", err, RefusalNone)
	}
	if _, err := ParseList(Linux, strings.Repeat("a ", MaxNames+1)); qlerror.ReasonOf(err) != RefusalTooMany {
		t.Errorf("a list over the limit: %v; want %s", err, RefusalTooMany)
	}
}

// A Linux package needs root: on a server that is not, the installer is
// refused naming it, though apk is there; with no installer on PATH, the
// refusal names what to install.
func TestLinuxPackagesNeedRootAndAMissingInstallerIsNamed(t *testing.T) {
	apk := func(file string) (string, error) {
		if file == "apk" {
			return "/sbin/apk", nil
		}
		return "", errors.New("not found")
	}
	if _, err := (Host{LookPath: apk}).Installer(Linux); qlerror.ReasonOf(err) != RefusalNeedsRoot || !strings.Contains(err.Error(), "apk") {
		t.Errorf("apk as not root: %v; want %s naming apk", err, RefusalNeedsRoot)
	}
	if p, err := (Host{LookPath: apk, Root: true}).Installer(Linux); err != nil || p != "/sbin/apk" {
		t.Errorf("apk as root: %q, %v", p, err)
	}
	if _, err := (Host{LookPath: apk, Root: true}).Installer(Python); qlerror.ReasonOf(err) != RefusalInstallerMissing || !strings.Contains(err.Error(), "python3-pip") {
		t.Errorf("no pip3: %v; want %s naming what to install", err, RefusalInstallerMissing)
	}
}

// apt-get's install is one shell line (its index is updated first),
// every word of it through shellquote (these need no quotes); apk, npm
// and pip are given their packages as arguments, no shell at all.
func TestOnlyAptGetsAShellLineAndItQuotesEveryWord(t *testing.T) {
	h := Host{ScriptsDir: "/ql/scripts"}
	pkgs := []Package{{Kind: Linux, Name: "libstdc++", Spec: "libstdc++"}, {Kind: Linux, Name: "curl", Spec: "curl=8.5.0-1"}}
	c := h.Command(Linux, Install, "/usr/bin/apt-get", pkgs, Mirror{})
	if c.Mode != task.ModeShell || c.Script != "/usr/bin/apt-get update && /usr/bin/apt-get install -y libstdc++ curl=8.5.0-1" {
		t.Errorf("apt-get install: %s %q", c.Mode, c.Script)
	}
	c = h.Command(Linux, Remove, "/sbin/apk", pkgs, Mirror{})
	if c.Mode != task.ModeArgv || strings.Join(c.Args, " ") != "del libstdc++ curl" {
		t.Errorf("apk remove: %s %q", c.Mode, c.Args)
	}
}
