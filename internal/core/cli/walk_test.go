package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// Every command group, the injected ones included, refuses an unknown
// subcommand with exit 2 and a one-line hint, and still shows its help when
// given none.
func TestEveryGroupRefusesAnUnknownSubcommand(t *testing.T) {
	t.Parallel()
	extra := &cobra.Command{Use: "db", Short: "an injected group"}
	extra.AddCommand(&cobra.Command{Use: "migrate", Short: "a subcommand", RunE: func(*cobra.Command, []string) error { return nil }})
	opts := Options{Binary: "ql", Extra: []*cobra.Command{extra}}
	groups := 0
	for _, c := range allCommands(NewRoot(opts)) {
		if !c.HasSubCommands() {
			continue
		}
		groups++
		path := strings.Fields(c.CommandPath())[1:]
		code, out, stderr := qlWith(t, opts, append(path, "lst")...)
		if code != 2 {
			t.Errorf("%s lst: exit %d, want 2 (stdout %q)", c.CommandPath(), code, out)
		}
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 2 || !strings.Contains(lines[0], `"lst"`) || !strings.Contains(lines[1], "--help") {
			t.Errorf("%s lst: stderr %q; want the unknown name and a --help hint", c.CommandPath(), stderr)
		}
		if len(path) == 0 {
			continue
		}
		if code, out, _ := qlWith(t, opts, path...); code != 0 || !strings.Contains(out, "Available Commands") {
			t.Errorf("%s: exit %d out %q; want its help", c.CommandPath(), code, out)
		}
	}
	if groups < 6 {
		t.Fatalf("walked %d groups; want root, cron, runs, triggers, completion and the injected db", groups)
	}
	for _, args := range [][]string{{"help", "lst"}, {"help", "runs", "lst"}} {
		if code, _, stderr := qlWith(t, opts, args...); code != 2 || !strings.Contains(stderr, "no help topic") {
			t.Errorf("%v: exit %d stderr %q; want a usage error", args, code, stderr)
		}
	}
	if code, out, _ := qlWith(t, opts, "help", "runs", "list"); code != 0 || !strings.Contains(out, "List runs") {
		t.Errorf("help runs list: exit %d out %q", code, out)
	}
}

func TestUnknownSubcommandSuggestsTheNearestOne(t *testing.T) {
	t.Parallel()
	code, _, stderr := ql(t, "runs", "lst")
	if code != 2 || !strings.Contains(stderr, "did you mean list?") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}

// Words given to a group of one command are offered back as that
// command's, quoted as a shell reads them: a cron expression given to
// `ql cron` points at `ql cron next`.
func TestAGroupOfOneCommandSuggestsItForTheWordsGiven(t *testing.T) {
	t.Parallel()
	code, _, stderr := ql(t, "cron", "*/5 * * * *", "Europe/Berlin")
	if want := "did you mean `ql cron next '*/5 * * * *' Europe/Berlin`?"; code != 2 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d stderr %q; want 2 and %q", code, stderr, want)
	}
}

// takesOne reports whether c takes one argument: the first word its use
// line gives after its name is a placeholder (NAME, RUN_ID, DIR…), or
// the file apply reads from -f.
func takesOne(c *cobra.Command) bool {
	words := strings.Fields(c.Use)[1:]
	return len(words) > 0 && (regexp.MustCompile(`^[A-Z][A-Z_]*$`).MatchString(words[0]) || words[0] == "-f")
}

// Every command that takes one argument, given none, says what it takes
// in one form — "ql PATH takes one WHAT", its path as typed — on the line
// before the --help hint, and exits 2; a command its sentence points at is
// quoted as the binary runs it (`ql …`), never bare in single quotes.
func TestEveryCommandMissingItsArgumentSaysWhatItTakesInOneForm(t *testing.T) {
	t.Parallel()
	root := NewRoot(Options{Binary: "ql"})
	var names []string
	for _, c := range root.Commands() {
		names = append(names, regexp.QuoteMeta(c.Name()))
	}
	bare := regexp.MustCompile(`'(ql )?(` + strings.Join(names, "|") + `)\b`)
	checked := 0
	for _, c := range allCommands(root) {
		if c.HasSubCommands() || !takesOne(c) {
			continue
		}
		checked++
		path := strings.Fields(c.CommandPath())[1:]
		code, _, stderr := ql(t, path...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if want := "ql: " + strings.Join(path, " ") + " takes one "; code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[1], "--help") {
			t.Errorf("%s with no argument: exit %d, stderr %q; want 2 and a first line starting %q, then the --help hint", c.CommandPath(), code, stderr, want)
		}
		if bare.MatchString(lines[0]) {
			t.Errorf("%s with no argument: %q quotes a command bare; quote it as `ql …`", c.CommandPath(), lines[0])
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d commands; want every one that takes an argument (runs show, triggers run, tokens create, …)", checked)
	}
}
