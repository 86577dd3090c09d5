package cli

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/triggerref"
	"github.com/qinglong/qinglong/internal/core/view"
)

func triggersEnableCommand(opts Options, enable bool) *cobra.Command {
	var db dbFlags
	var project, out, ifMatch string
	verb := "disable"
	ql := opts.Binary
	c := &cobra.Command{
		Short: "Disable a trigger: publish its revision again with enabled: false",
		Long: `Disable a trigger (NAME is its name, project/name, or id): its current revision is published again
with only enabled: false, a new revision like any ` + "`" + ql + " apply`" + ` of the changed file. While disabled
no Run of it is admitted (by its schedule, run now or backfill); Runs admitted before, queued or running,
go on (` + "`" + ql + " runs list --trigger NAME --state queued`" + ` lists them, ` + "`" + ql + " runs cancel`" + ` stops one). When it is enabled again, every occurrence that fell due meanwhile is recorded in the
ledger as "disabled" (` + "`" + ql + " triggers show`" + `) and none is caught up. Occurrences of the replaced
revision that were due and not yet decided are recorded too, as "republished". The change is audited
with the operating-system user (over --api-url, the API token and the address it came from).
Disabling a disabled trigger changes nothing. --if-match REVISION disables it only if its project is still
at REVISION (` + "`" + ql + " projects show`" + ` prints it; a disable moves it), as ` + "`" + ql + " apply --if-match`" + ` does: when
it changed it is refused (exit 4) naming the revision now, nothing written. A trigger whose stored zone the zone database of this
host lacks (a newer one published it) is refused, naming the zone and what mends it.
A later ` + "`" + ql + " apply`" + ` of a file saying enabled: true (the default) enables it again: write
enabled: false in the file to keep it disabled. Pause (` + "`" + ql + " triggers pause`" + `) is the
alternative that is schedule state, kept across applies, with the misfire policy applied on resume.
` + apiHelp("triggers disable") +
			opts.clusterOnly("\nOn the cluster this needs the admin role's URL, as `ql apply` does (a replica's API cannot disable)."),
	}
	if enable {
		verb = "enable"
		c.Short = "Enable a disabled trigger: publish its revision again with enabled: true"
		c.Long = `Enable a disabled trigger (NAME is its name, project/name, or id): its current revision is published
again with only enabled: true. The new revision starts at its publish: the occurrences that fell due while
it was disabled are recorded in the ledger as "disabled" (` + "`" + ql + " triggers show`" + `), none runs late.
Its task must be enabled. The change is audited with the operating-system user (over --api-url, the
API token and the address it came from). Enabling an enabled trigger changes nothing. --if-match
REVISION enables it only if its project is still at REVISION, as for disable. A trigger whose
stored zone the zone database of this host lacks (a newer one published it) is refused, naming the
zone and what mends it.
` + apiHelp("triggers enable") + opts.clusterOnly(" On the cluster this needs the admin role's URL, as `ql apply` does (a replica's API cannot enable).")
	}
	c.Use = verb + " NAME..."
	c.Long += "\n" + severalTriggersHelp(verb)
	c.Args = cobra.MinimumNArgs(1)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := checkOutput(out); err != nil {
			return err
		}
		if ifMatch != "" && len(args) > 1 {
			return Usagef("--if-match takes one trigger, %d given: each %s moves its project's revision, so a second trigger of the project would be refused; %s them one at a time", len(args), verb, verb)
		}
		b, err := openExistingForWrite(cmd.Context(), opts, &db)
		if err != nil {
			return err
		}
		defer b.Close()
		if b.Catalog.Store == nil && b.api == nil {
			return fmt.Errorf("this build cannot %s triggers of this database", verb)
		}
		// With -o json, several names print one document, {"triggers": [...]},
		// the answers of those done in the order given; one name prints
		// its answer alone, as the API answers it.
		done := []view.TriggerEnable{}
		one := func(name string) error {
			t, err := findTrigger(cmd, b.Triggers, project, name)
			if err != nil {
				return err
			}
			var res catalog.EnableResult
			if b.api != nil {
				if ifMatch != "" {
					b.api.header = http.Header{"If-Match": {`"` + ifMatch + `"`}}
				}
				res, err = b.api.TriggerSetEnabled(cmd.Context(), t.TriggerID, enable)
			} else {
				req := catalog.EnableRequest{ProjectID: t.ProjectID, Name: t.Name, Enabled: enable, Actor: actor()}
				if ifMatch != "" {
					req.Precondition = apply.RevisionPrecondition(t.ProjectName, []string{ifMatch})
				}
				res, err = b.Catalog.TriggerSetEnabled(cmd.Context(), req)
			}
			if err != nil {
				return err
			}
			if out == "json" {
				done = append(done, view.NewTriggerEnable(t.TriggerID, res))
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), enableMessage(ql, name, suggest(cmd, "triggers", "enable", qualified(t)), res))
			return nil
		}
		if len(args) == 1 {
			if err := one(args[0]); err != nil || out != "json" {
				return err
			}
			return writeJSON(cmd.OutOrStdout(), done[0])
		}
		err = eachTrigger(cmd, ql, verb, args, one)
		if out == "json" {
			if werr := writeJSON(cmd.OutOrStdout(), view.TriggerEnables{Triggers: done}); werr != nil && err == nil {
				err = werr
			}
		}
		return err
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "the trigger's project (name or id), when its name is not unique")
	c.Flags().StringVar(&ifMatch, "if-match", "", verb+" only if the trigger's project is still at this revision (as "+ql+" projects show prints it); refused, exit 4, when it changed")
	return c
}

// findTrigger resolves NAME (name, project/name or id) to its status.
func findTrigger(cmd *cobra.Command, r schedule.StatusReader, project, name string) (schedule.TriggerStatus, error) {
	projectID, id, err := resolveTriggerArg(cmd.Context(), r, project, name)
	if err != nil {
		return schedule.TriggerStatus{}, err
	}
	found, ok, err := triggerref.ByID(cmd.Context(), r, projectID, id)
	if c, remote := r.(*apiClient); err == nil && !ok && remote {
		// A token bound to projects lists its projects' triggers only:
		// the server says whether the id is another project's
		// (project_not_in_scope) or no trigger's.
		_, err = c.TriggerView(cmd.Context(), id, 1, 1)
	}
	if err == nil && !ok {
		err = qlerror.New(qlerror.NotFound, "trigger %s does not exist; `%s` shows the triggers", name, suggest(cmd, "triggers", "list"))
	}
	if err != nil {
		return schedule.TriggerStatus{}, err
	}
	return found, nil
}

// enableMessage is what enabling (or disabling) trigger name did; enable
// is the command that enables it again, as suggest words it.
func enableMessage(binary, name, enable string, res catalog.EnableResult) string {
	state := "disabled"
	if res.Enabled {
		state = "enabled"
	}
	if !res.Changed {
		return fmt.Sprintf("trigger %s: already %s (revision %d); nothing changed", name, state, res.Revision)
	}
	if res.Enabled {
		return fmt.Sprintf("trigger %s: enabled as revision %d at %s; what fell due while disabled is recorded as disabled, none runs late", name, res.Revision, fmtMs(&res.CreatedAtMs))
	}
	return fmt.Sprintf("trigger %s: disabled as revision %d at %s; enable it with `%s` (a `%s apply` of a file saying enabled: true enables it too)", name, res.Revision, fmtMs(&res.CreatedAtMs), enable, binary)
}
