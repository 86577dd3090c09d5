package deps

import (
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Action is what a Run does to packages.
type Action string

// The actions.
const (
	Install Action = "install"
	Remove  Action = "remove"
)

// Timeout bounds one installer's Run: a download that hangs ends, and the
// Run says it timed out, rather than hold the project's one slot.
const Timeout = 30 * time.Minute

// Host is where this server's commands run, as its installers see it.
type Host struct {
	// ScriptsDir is the scripts folder: Node.js packages go into its
	// node_modules, where `node x.js` run in it (or in a folder of it)
	// finds them.
	ScriptsDir string
	// LookPath finds an installer on the server's PATH (exec.LookPath).
	LookPath func(file string) (string, error)
	// Root says the server runs as root, which a Linux package needs.
	Root bool
	// RunAs is the account the server's commands run as (--run-as),
	// zero for the server's own: npm, run as it, writes the scripts
	// folder (CheckWritable).
	RunAs task.RunAs
}

// installers name per kind the programs tried, in order, and what to
// install when none is found.
var installers = map[Kind]struct {
	programs []string
	install  string
}{
	Node:   {[]string{"npm"}, "Node.js with npm (apk add nodejs npm, or apt-get install nodejs npm)"},
	Python: {[]string{"pip3"}, "Python 3 with pip (apk add py3-pip, or apt-get install python3-pip)"},
	Linux:  {[]string{"apk", "apt-get"}, "apk (Alpine) or apt-get (Debian, Ubuntu)"},
}

// InstallHint says what to install on a host that has no installer of
// kind k: the {install} of a dependency_installer_missing refusal.
func InstallHint(k Kind) string { return installers[k].install }

// Installer is the absolute path of the program that installs kind k on
// this server; a refusal naming what to install when there is none, or,
// for Linux packages, when the server does not run as root.
func (h Host) Installer(k Kind) (string, error) {
	in, ok := installers[k]
	if !ok {
		return "", qlerror.New(qlerror.Invalid, "dependency type %q is not one of node, python, linux", k).Because(RefusalKindUnknown, "kind", string(k))
	}
	look := h.LookPath
	if look == nil {
		look = exec.LookPath
	}
	for _, p := range in.programs {
		if path, err := look(p); err == nil {
			if k == Linux && !h.Root {
				return "", qlerror.New(qlerror.FailedPrecondition, "Linux packages are installed with %s, which needs root, and this server does not run as root: "+
					"install them on the host yourself, or run the server as root (as the 青龙 image does)", p).Because(RefusalNeedsRoot, "installer", p)
			}
			return path, nil
		}
	}
	names := strings.Join(in.programs, " or ")
	return "", qlerror.New(qlerror.FailedPrecondition, "%s packages are installed with %s, which is not on this server's PATH: install %s on this host, then try again",
		k, names, in.install).Because(RefusalInstallerMissing, "kind", string(k), "installer", names, "install", in.install)
}

// Command is the task command that does a to pkgs with installer (what
// Installer found), fetching through m (the kind's checked mirror, zero
// for the installer's defaults): its arguments are the checked
// specifiers (install) or names (remove) and the mirror's URL each a
// word of its own, never a shell line, but for apt-get, whose install
// needs its index updated first: that line quotes every word.
func (h Host) Command(k Kind, a Action, installer string, pkgs []Package, m Mirror) task.Command {
	words := make([]string, len(pkgs))
	for i, p := range pkgs {
		words[i] = p.Spec
		if a == Remove {
			words[i] = p.Name
		}
	}
	c := task.Command{Mode: task.ModeArgv, Path: installer, TimeoutMs: Timeout.Milliseconds(), WorkingDir: h.ScriptsDir}
	switch {
	case k == Node && a == Install:
		c.Args = append(append([]string{"install", "--prefix", h.ScriptsDir, "--no-audit", "--no-fund"}, npmRegistry(m)...), words...)
		c.Env = proxyEnv(m)
	case k == Node:
		c.Args = append(append([]string{"uninstall", "--prefix", h.ScriptsDir}, npmRegistry(m)...), words...)
		c.Env = proxyEnv(m)
	case k == Python && a == Install:
		// --user: the packages go where python3 run as the server's
		// account finds them, the system's own left alone; a system
		// that marks its Python externally managed (PEP 668) otherwise
		// refuses even that.
		args := []string{"install", "--user"}
		if m.Registry != "" {
			// pip says "Looking in indexes: URL" at its start: the
			// Run's log names the index it used.
			args = append(args, "-i", m.Registry, "--trusted-host", m.TrustedHost)
		}
		c.Args = append(args, words...)
		c.Env = append([]task.EnvVar{{Name: "PIP_BREAK_SYSTEM_PACKAGES", Value: "1"}, {Name: "PIP_DISABLE_PIP_VERSION_CHECK", Value: "1"}}, proxyEnv(m)...)
	case k == Python:
		c.Args = append([]string{"uninstall", "-y"}, words...)
		c.Env = []task.EnvVar{{Name: "PIP_BREAK_SYSTEM_PACKAGES", Value: "1"}, {Name: "PIP_DISABLE_PIP_VERSION_CHECK", Value: "1"}}
	case strings.HasSuffix(installer, "/apk") && a == Install:
		c.Args = append([]string{"add", "--no-cache"}, words...)
	case strings.HasSuffix(installer, "/apk"):
		c.Args = append([]string{"del"}, words...)
	default:
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellquote.Quote(w)
		}
		line := fmt.Sprintf("%s remove -y %s", shellquote.Quote(installer), strings.Join(quoted, " "))
		if a == Install {
			line = fmt.Sprintf("%[1]s update && %[1]s install -y %s", shellquote.Quote(installer), strings.Join(quoted, " "))
		}
		c = task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: line, TimeoutMs: c.TimeoutMs, WorkingDir: c.WorkingDir,
			Env: []task.EnvVar{{Name: "DEBIAN_FRONTEND", Value: "noninteractive"}}}
	}
	return c
}

// npmRegistry are npm's words for m's registry: --registry, and a log
// level that has npm say each fetch with its URL, so that the Run's log
// names the registry it used; none for npm's default.
func npmRegistry(m Mirror) []string {
	if m.Registry == "" {
		return nil
	}
	return []string{"--registry", m.Registry, "--loglevel", "http"}
}

// proxyEnv is the environment that has npm and pip reach their registry
// through m's proxy; none without one.
func proxyEnv(m Mirror) []task.EnvVar {
	if m.Proxy == "" {
		return nil
	}
	return []task.EnvVar{{Name: "HTTPS_PROXY", Value: m.Proxy}, {Name: "HTTP_PROXY", Value: m.Proxy}}
}
