package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

func projectsPauseCommand(opts Options, pause bool) *cobra.Command {
	var db dbFlags
	var note, out string
	verb := "resume"
	c := &cobra.Command{
		Use:   "resume PROJECT [--note TEXT]",
		Short: "Resume a paused project: the triggers its pause paused run again",
		Long: commandText(opts.Binary, `Resume a paused project (PROJECT is its name or id). It resumes exactly the triggers the project's
pause paused ("paused with its project" in {ql triggers list}): a trigger paused on its own, before
the project or while it was paused, stays paused with its own note (resume it with
{ql triggers resume}). Each resumed trigger is resumed as {ql triggers resume} does it: what fell due
while paused is recorded in the ledger as "paused" and its misfire policy decides whether the oldest
of it runs. Resuming a project that is not paused changes nothing and says so (a repeated command is
harmless). The note, if given (why it runs again), is kept with each resumed trigger's resume
record, as a pause's is with its pause. An unknown project is refused, and so is an archived one:
nothing of it runs anyway; a name no project can have (upper case, a space) is refused before
anything is asked (exit 2).
`) + apiHelp("projects resume") + opts.clusterOnly("\n"+pauseRoles),
	}
	if pause {
		verb = "pause"
		c.Use, c.Short = "pause PROJECT [--note TEXT]", "Pause a whole project: none of its triggers, present or published later, is scheduled until it is resumed"
		c.Long = commandText(opts.Binary, `Pause a whole project (PROJECT is its name or id). Every trigger of it that is not paused is paused,
as {ql triggers pause} pauses one (with the note, audited with who asked and when), and marked as
paused with its project; a trigger published into the project while it is paused starts paused the
same way. A trigger already paused on its own keeps its pause and note, and the project's resume
leaves it paused; pausing one of the project's triggers while the project is paused makes that pause
its own. Pausing a paused project changes nothing and keeps the first note (as for a trigger: a
repeated command is harmless). An unknown project is refused, and so is an archived one: nothing of
it runs anyway; a name no project can have (upper case, a space) is refused before anything is
asked (exit 2).
`) + apiHelp("projects pause") + opts.clusterOnly("\n"+pauseRoles)
		c.Flags().StringVar(&note, "note", "", "why it is paused, shown by triggers show for each of its triggers (up to "+strconv.Itoa(schedule.MaxPauseNote)+" characters)")
	} else {
		c.Flags().StringVar(&note, "note", "", "why it runs again, kept with each resumed trigger's resume record (up to "+strconv.Itoa(schedule.MaxPauseNote)+" characters)")
	}
	// An id has a name's shape too: a malformed name is refused here,
	// as the API refuses it (name_shape), not looked for.
	c.Args = oneChecked("projects "+verb+" takes one project: its name or id", func(s string) error { return validate.Name("project", s) })
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := checkOutput(out); err != nil {
			return err
		}
		b, err := openPauser(cmd, opts, &db, note, verb+" projects", func(b *Backend) bool { return b.ProjectPause != nil })
		if err != nil {
			return err
		}
		defer b.Close()
		res, err := b.ProjectPause.ProjectPause(cmd.Context(), schedule.ProjectPauseRequest{Project: args[0], Pause: pause, Note: note, Actor: actor()})
		if err != nil {
			return err
		}
		res.Queued = queuedAtPause(cmd.Context(), b, pause, res.Queued, run.ListParams{ProjectID: res.ProjectID})
		if out == "json" {
			return writeJSON(cmd.OutOrStdout(), view.NewProjectPause(res))
		}
		msg := projectPauseMessage(res, suggest(cmd, "projects", "resume", res.ProjectName))
		if left := run.QueuedBeforeThePause(res.Queued, suggest(cmd, "runs", "cancel", "--state", "queued", "--project", res.ProjectName)); left != "" {
			msg += "; " + left
		}
		fmt.Fprintln(cmd.OutOrStdout(), msg)
		return nil
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	return c
}

// commandText writes each {ql …} of a help text as the command, with the
// binary's name, in backquotes.
func commandText(binary, text string) string {
	return strings.NewReplacer("{ql ", "`"+binary+" ", "}", "`").Replace(text)
}

// projectPauseMessage is what pausing (or resuming) a project did; resume
// is the command that resumes it, as suggest words it.
func projectPauseMessage(res schedule.ProjectPauseResult, resume string) string {
	at := fmtMs(&res.AtMs)
	triggers := plural.Count(int64(res.Triggers), "trigger", "triggers")
	kept := ""
	if res.KeptPaused > 0 {
		kept = fmt.Sprintf("; %s paused on its own stays paused (`triggers list` shows which)", plural.Count(int64(res.KeptPaused), "trigger", "triggers"))
	}
	switch {
	case res.Paused && res.Changed:
		return fmt.Sprintf("project %s: paused at %s: %s paused now, %d already paused on its own (keeping its own pause); triggers published into it meanwhile start paused; resume it with `%s`", res.ProjectName, at, triggers, res.AlreadyPaused, resume)
	case res.Paused:
		msg := fmt.Sprintf("project %s: already paused since %s by %s; nothing changed", res.ProjectName, at, res.Actor)
		if res.Note != "" {
			msg += " (note: " + oneLine(res.Note) + ")"
		}
		return msg
	case res.Changed:
		return fmt.Sprintf("project %s: resumed at %s with %s; what fell due while paused is recorded as paused, and each trigger's misfire policy decides whether the oldest of it runs%s", res.ProjectName, at, triggers, kept)
	}
	return fmt.Sprintf("project %s: not paused; nothing changed%s", res.ProjectName, kept)
}

// queuedAtPause is, at a pause, how many Runs of filter p are queued and
// still start: counted here from a database (run.CountQueued), or as the
// server's answer said it (answered) over --api-url; 0 at a resume. The
// pause has committed by then, so a count that fails — the cluster's
// admin role, which pauses, may not read Runs — leaves the note out
// rather than failing a pause that was made.
func queuedAtPause(ctx context.Context, b *Backend, pause bool, answered int, p run.ListParams) int {
	if !pause || b.api != nil || b.Runs == nil {
		return answered
	}
	n, err := run.CountQueued(ctx, b.Runs, p)
	if err != nil {
		return 0
	}
	return n
}
