package deps

import (
	"os"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A mirror's URLs are http or https, one word, no option and no
// credentials; the refusal says which field and why, and never shows the
// password it was refused for. Linux takes none.
func TestAMirrorIsAnHTTPURLWithoutCredentialsOrItIsRefusedSayingWhy(t *testing.T) {
	for _, c := range []struct {
		m   Mirror
		why string
	}{
		{Mirror{Kind: Node, Registry: "ftp://mirror.example/npm"}, WhyMirrorScheme},
		{Mirror{Kind: Node, Registry: "registry.npmmirror.com"}, WhyMirrorScheme},
		{Mirror{Kind: Node, Registry: "--registry=https://evil.example"}, WhyMirrorOption},
		{Mirror{Kind: Python, Registry: "https://a.example/simple --pre"}, WhyMirrorSpace},
		{Mirror{Kind: Python, Proxy: "http://bob:hunter2@proxy.example:3128"}, WhyMirrorUserInfo},
		{Mirror{Kind: Python, Registry: "https://tok:hunter2@pypi.example/simple"}, WhyMirrorUserInfo},
		{Mirror{Kind: Node, Proxy: "http://"}, WhyMirrorNoHost},
		{Mirror{Kind: Node, Registry: "https://x.example/" + strings.Repeat("a", MaxMirrorURL)}, WhyMirrorLong},
	} {
		_, err := CheckMirror(c.m)
		if qlerror.ReasonOf(err) != RefusalMirrorURL || qlerror.ParamsOf(err)["why"] != c.why {
			t.Errorf("%+v: %v; want %s because it %s", c.m, err, RefusalMirrorURL, c.why)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%+v: the refusal shows the password: %v", c.m, err)
		}
	}
	if _, err := CheckMirror(Mirror{Kind: Linux, Registry: "https://mirrors.aliyun.com/alpine"}); qlerror.ReasonOf(err) != RefusalMirrorKind {
		t.Errorf("a linux mirror: %v; want %s", err, RefusalMirrorKind)
	}
	m, err := CheckMirror(Mirror{Kind: Python, Registry: " https://pypi.tuna.tsinghua.edu.cn/simple ", Proxy: "http://127.0.0.1:7890"})
	if err != nil || m.Registry != "https://pypi.tuna.tsinghua.edu.cn/simple" || m.TrustedHost != "pypi.tuna.tsinghua.edu.cn" {
		t.Errorf("the Tsinghua index: %+v, %v; want it trimmed, its host trusted", m, err)
	}
}

// npm is given the registry as a word of its own after --registry, pip
// the index after -i and its host after --trusted-host, and both the
// proxy in HTTPS_PROXY: never a shell line. No mirror, none of them.
func TestAMirrorReachesTheInstallersAsArgumentsAndTheProxyAsEnvironment(t *testing.T) {
	h := Host{ScriptsDir: "/ql/scripts"}
	pkgs := []Package{{Kind: Node, Name: "axios", Spec: "axios"}}
	c := h.Command(Node, Install, "/usr/bin/npm", pkgs, Mirror{Kind: Node, Registry: "https://registry.npmmirror.com", Proxy: "http://127.0.0.1:7890"})
	if got := strings.Join(c.Args, " "); c.Mode != task.ModeArgv || got != "install --prefix /ql/scripts --no-audit --no-fund --registry https://registry.npmmirror.com --loglevel http axios" {
		t.Errorf("npm install: %s %q", c.Mode, got)
	}
	if !hasEnv(c.Env, "HTTPS_PROXY", "http://127.0.0.1:7890") {
		t.Errorf("npm's environment has no HTTPS_PROXY: %+v", c.Env)
	}
	py := []Package{{Kind: Python, Name: "requests", Spec: "requests"}}
	m, _ := CheckMirror(Mirror{Kind: Python, Registry: "http://mirrors.example:8080/simple"})
	c = h.Command(Python, Install, "/usr/bin/pip3", py, m)
	if got := strings.Join(c.Args, " "); c.Mode != task.ModeArgv || got != "install --user -i http://mirrors.example:8080/simple --trusted-host mirrors.example:8080 requests" {
		t.Errorf("pip install: %s %q", c.Mode, got)
	}
	c = h.Command(Python, Install, "/usr/bin/pip3", py, Mirror{Kind: Python})
	if got := strings.Join(c.Args, " "); got != "install --user requests" || hasEnv(c.Env, "HTTPS_PROXY", "") {
		t.Errorf("pip install without a mirror: %q %+v", got, c.Env)
	}
}

func hasEnv(env []task.EnvVar, name, value string) bool {
	for _, e := range env {
		if e.Name == name && (value == "" || e.Value == value) {
			return true
		}
	}
	return false
}

// With --run-as, an npm change the account could not write into the
// scripts folder (or its node_modules) is refused before any Run, naming
// the folder and the chown that fixes it; given the folder, it passes.
func TestAnNpmChangeTheRunAsAccountCannotWriteIsRefusedNamingTheFix(t *testing.T) {
	if os.Geteuid() == 65534 {
		t.Skip("this test runs as nobody, the account it checks")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := Host{ScriptsDir: dir, RunAs: task.RunAs{User: "65534"}}
	err := h.CheckWritable()
	if qlerror.ReasonOf(err) != RefusalFolderUnwritable || qlerror.ParamsOf(err)["folder"] != dir || qlerror.ParamsOf(err)["fix"] != "chown 65534 "+dir {
		t.Fatalf("a scripts folder of mode 0755 not nobody's: %v; want %s naming %s and its chown", err, RefusalFolderUnwritable, dir)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir+"/node_modules", 0o755); err != nil {
		t.Fatal(err)
	}
	err = h.CheckWritable()
	if qlerror.ParamsOf(err)["fix"] != "chown -R 65534 "+dir+"/node_modules" {
		t.Fatalf("a node_modules of mode 0755 not nobody's: %v; want its chown -R", err)
	}
	if err := os.Chmod(dir+"/node_modules", 0o777); err != nil {
		t.Fatal(err)
	}
	if err := h.CheckWritable(); err != nil {
		t.Errorf("a folder every account writes: %v", err)
	}
	if err := (Host{ScriptsDir: dir}).CheckWritable(); err != nil {
		t.Errorf("no --run-as: %v", err)
	}
}
