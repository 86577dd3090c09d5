package repocheck

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The release build (build.sh, which the Dockerfile, CI and the edge size
// benchmark run) makes ql-edge as BENCHMARKS.md measures it: static,
// without the build machine's paths, the symbol table or DWARF, and
// without net/http's HTTP/2, which the edge uses nowhere (every server of
// QingLong speaks HTTP/1.1 over TLS: internal/core/httpserve's
// TestTheServerSpeaksHTTP1OverTLSEvenToAClientOfferingHTTP2). It reports
// the version it was given (QL_VERSION, as the Dockerfile passes it), not
// "dev", which is what a plain go build says.
func TestTheReleaseEdgeBuildIsStaticStrippedWithoutHTTP2AndSaysItsVersion(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs(filepath.Join(repoRoot, "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command("sh", script, "-o", out, "ql-edge")
	// From another directory, as a user may run it: the script finds the
	// repository by its own path.
	cmd.Dir = t.TempDir()
	const version = "v0.0.0-release.test"
	cmd.Env = append(os.Environ(), "GOOS=linux", "QL_VERSION="+version)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("./build.sh -o DIR ql-edge: %v\n%s", err, msg)
	}
	bin := filepath.Join(out, "ql-edge")
	said, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(said), "version "+version+"\n") {
		t.Errorf("ql-edge --version of a build given QL_VERSION=%s: %v, %q; want it first", version, err, said)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" {
		t.Errorf("ql-edge was built with CGO_ENABLED=%q; a release binary must be static (0)", settings["CGO_ENABLED"])
	}
	if settings["-trimpath"] != "true" {
		t.Error("ql-edge was built without -trimpath: it carries the build machine's paths")
	}
	if !slices.Contains(strings.Split(settings["-tags"], ","), "nethttpomithttp2") {
		t.Errorf("ql-edge was built with tags %q, without nethttpomithttp2: it links net/http's HTTP/2, 0.5 MiB the edge never uses", settings["-tags"])
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			t.Errorf("ql-edge has the section %s: the release build strips symbols and DWARF (-ldflags='-s -w')", s.Name)
		}
	}
}

// The release build stamps the commit it was built from, as `git
// rev-parse HEAD` names it, even where Go's own VCS stamp is left out: in a
// git worktree (.git is a file there) and under GOFLAGS=-buildvcs=false.
func TestTheReleaseBuildStampsItsCommitWhateverGOFLAGSSay(t *testing.T) {
	t.Parallel()
	head, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	out := t.TempDir()
	cmd := exec.Command("sh", filepath.Join(repoRoot, "build.sh"), "-o", out, "ql-edge")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOFLAGS=-buildvcs=false")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("./build.sh -o DIR ql-edge: %v\n%s", err, msg)
	}
	said, err := exec.Command(filepath.Join(out, "ql-edge"), "version").Output()
	want := "commit  " + strings.TrimSpace(string(head))
	if err != nil || !strings.Contains(string(said), "\n"+want) {
		t.Errorf("ql-edge version of a build with GOFLAGS=-buildvcs=false: %v, %q; want a line starting %q", err, said, want)
	}
}

// A release's source tarball (git archive: no .git) builds binaries that
// report the commit it was archived from, which its COMMIT file carries;
// QL_COMMIT given to the build is reported instead; and sources with
// neither (a copy of the tree) build binaries whose `version` says the
// commit is unknown and how a build gets one, not a bare "unknown".
func TestTheReleaseBuildOfSourcesWithoutACheckoutStampsTheCommitTheyCarry(t *testing.T) {
	t.Parallel()
	head, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	src := t.TempDir()
	if msg, err := exec.Command("sh", "-c", `git -C "$1" archive HEAD | tar -x -C "$2"`, "archive", repoRoot, src).CombinedOutput(); err != nil {
		t.Fatalf("git archive HEAD: %v\n%s", err, msg)
	}
	commitLine := func(env ...string) string {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command("sh", filepath.Join(src, "build.sh"), "-o", out, "ql-edge")
		cmd.Env = append(append(os.Environ(), "GOOS=linux"), env...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("./build.sh -o DIR ql-edge in the unpacked sources (%v): %v\n%s", env, err, msg)
		}
		said, err := exec.Command(filepath.Join(out, "ql-edge"), "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		_, line, _ := strings.Cut(string(said), "\ncommit  ")
		line, _, _ = strings.Cut(line, "\n")
		return line
	}
	if got, want := commitLine(), strings.TrimSpace(string(head)); got != want {
		t.Errorf("ql-edge built from the tarball of %s says commit %q; want %q", want, got, want)
	}
	if got := commitLine("QL_COMMIT=0123abc"); got != "0123abc" {
		t.Errorf("ql-edge built from the tarball with QL_COMMIT=0123abc says commit %q; want 0123abc", got)
	}
	if err := os.Remove(filepath.Join(src, "COMMIT")); err != nil {
		t.Fatal(err)
	}
	if got := commitLine(); !strings.HasPrefix(got, "unknown (none was stamped: ") || !strings.Contains(got, "QL_COMMIT") {
		t.Errorf("ql-edge built from sources carrying no commit says commit %q; want unknown, saying QL_COMMIT gives one", got)
	}
}

// A version that -ldflags could not carry whole (a space, a quote) is
// refused before anything is built, saying what a version takes.
func TestTheReleaseBuildRefusesAVersionItCannotStamp(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", filepath.Join(repoRoot, "build.sh"), "-o", t.TempDir(), "ql-edge")
	cmd.Env = append(os.Environ(), "QL_VERSION=1.0 beta")
	msg, err := cmd.CombinedOutput()
	want := "build.sh: QL_VERSION=1.0 beta: a version takes letters, digits and . _ + - only, e.g. v1.2.3\n"
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || string(msg) != want {
		t.Errorf("build.sh with QL_VERSION=\"1.0 beta\": %v, %q; want exit 2 and %q", err, msg, want)
	}
}

// A Linux architecture the embedded SQLite driver is not built for (MIPS,
// most OpenWrt routers) is refused before anything is built, exit 2,
// naming the architectures that build: go build would stop inside the
// driver's C library saying only that build constraints exclude its files.
func TestTheReleaseBuildRefusesAnArchitectureTheSQLiteDriverLacksNamingThoseItHas(t *testing.T) {
	t.Parallel()
	for _, arch := range []string{"mipsle", "mips", "mips64le"} {
		cmd := exec.Command("sh", filepath.Join(repoRoot, "build.sh"), "-o", t.TempDir(), "ql-edge")
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch)
		msg, err := cmd.CombinedOutput()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(msg), "build.sh: linux/"+arch+": QingLong's embedded SQLite driver is not built for "+arch) ||
			!strings.Contains(string(msg), "386, amd64, arm (GOARM=5, 6 or 7), arm64") {
			t.Errorf("build.sh for linux/%s: %v, %q; want exit 2 naming the architectures that build", arch, err, msg)
		}
	}
}

// A system QingLong does not support (Windows, where go build would stop
// on raw compile errors: no flock, no POSIX signal names) is refused
// before anything is built, exit 2, naming the systems it runs on: Linux,
// supported, and macOS, which builds untested.
func TestTheReleaseBuildRefusesASystemOtherThanLinuxOrMacOSNamingThose(t *testing.T) {
	t.Parallel()
	for _, goos := range []string{"windows", "freebsd"} {
		cmd := exec.Command("sh", filepath.Join(repoRoot, "build.sh"), "-o", t.TempDir(), "ql")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
		msg, err := cmd.CombinedOutput()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || !strings.HasPrefix(string(msg), "build.sh: "+goos+"/amd64: not a system QingLong supports") ||
			!strings.Contains(string(msg), "supported on Linux (GOOS=linux) and builds, untested, for macOS (GOOS=darwin)") {
			t.Errorf("build.sh for %s/amd64: %v, %q; want exit 2 naming Linux and macOS", goos, err, msg)
		}
	}
}
