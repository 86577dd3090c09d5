package cli

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// On a terminal a deletion asks for the project's name and goes on only
// when it is typed as it is; anything else refuses, exit 2, saying
// nothing was deleted. Off a terminal it asks nothing and refuses with
// confirmation_required.
func TestADeletionOnATerminalGoesOnOnlyOnceTheProjectsNameIsTyped(t *testing.T) {
	t.Parallel()
	for typed, want := range map[string]bool{"legacy\n": true, "Legacy\n": false, "\n": false} {
		tty, master := openPTY(t)
		cmd := &cobra.Command{}
		var prompt bytes.Buffer
		cmd.SetIn(tty)
		cmd.SetErr(&prompt)
		if _, err := io.WriteString(master, typed); err != nil {
			t.Fatal(err)
		}
		err := confirmDeletion(cmd, "legacy")
		if got := err == nil; got != want || !strings.Contains(prompt.String(), "Type the project's name (legacy)") {
			t.Errorf("typed %q: %v (asked %q); want confirmed %v", typed, err, prompt.String(), want)
		}
		var usage *UsageError
		if err != nil && (!errors.As(err, &usage) || !strings.Contains(err.Error(), "nothing was deleted")) {
			t.Errorf("typed %q: %v; want a usage error (exit 2) saying nothing was deleted", typed, err)
		}
	}
	cmd := &cobra.Command{}
	cmd.SetIn(strings.NewReader("legacy\n"))
	if err := confirmDeletion(cmd, "legacy"); qlerror.ReasonOf(err) != project.RefusalConfirmationRequired || exitCodeOf(err) != 2 {
		t.Fatalf("off a terminal: %v; want %s, exit 2", err, project.RefusalConfirmationRequired)
	}
}
