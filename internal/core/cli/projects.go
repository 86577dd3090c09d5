package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/view"
)

func projectsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "projects",
		Short: "List, show, pause, resume and delete projects",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(projectsListCommand(opts), projectsShowCommand(opts), projectsPauseCommand(opts, true), projectsPauseCommand(opts, false), projectsDeleteCommand(opts))
	return c
}

func projectsShowCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	ql := opts.Binary
	c := &cobra.Command{
		Use:   "show PROJECT",
		Short: "Show a project's id, status, env, revision and pause",
		Long: `Print the project's id, status and revision, and whether it is paused (` + "`" + ql + ` projects pause` + "`" + `): since when,
by whom and with which note (-o json: pause.paused, pause.note, pause.actor, pause.atMs; once resumed,
actor and atMs are the resume's). Each variable of the project's env, which every task of it starts
with, is an env row: NAME=value, or NAME (secret NAME) for a secret, never its value (-o json: env,
a list of name with value or secret). The revision is a digest of the project (its id,
name, status and notifications) and the id and current revision of each of its tasks and triggers:
any apply that changes the project, and any enable or disable, moves it. Give it to
` + "`" + ql + ` apply --if-match REVISION` + "`" + ` to publish an edited file only if nobody changed the project since
you read it. Read the revision before the definitions you edit (` + "`" + ql + ` export` + "`" + `): a change made
between the two reads is then refused, not overwritten. A project of 10,001 tasks or triggers or more has no revision ("-"; left out of -o json).
An unknown PROJECT exits 1, naming the projects there are.

` + apiHelp("projects show") + opts.clusterOnly(`
On the cluster both the admin and the runtime role's URL may read it.`),
		Example: "  " + ql + " projects show demo\n" +
			"  rev=$(" + ql + " projects show demo -o json | jq -r .revision)   # first, then:\n" +
			"  " + ql + " export demo -o demo.yaml                             # edit it, then:\n" +
			"  " + ql + " apply -f demo.yaml --if-match \"$rev\"",
		Args: oneName("projects show takes one project name", "project name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			p, err := shownProject(cmd, opts, &db, args[0])
			if err != nil {
				return err
			}
			if out == "json" {
				return writeJSON(cmd.OutOrStdout(), p)
			}
			rev := p.Revision
			if rev == "" {
				rev = "- (10,001 tasks or triggers or more: past what a revision reads)"
			}
			w := NewTable(cmd.OutOrStdout())
			fmt.Fprintf(w, "project\t%s\n", p.Name)
			if p.Title != "" {
				fmt.Fprintf(w, "title\t%s\n", p.Title)
			}
			fmt.Fprintf(w, "id\t%s\nstatus\t%s\n", p.ID, p.Status)
			if p.MaxRunning > 0 {
				fmt.Fprintf(w, "maxRunning\t%d (Runs at once)\n", p.MaxRunning)
			}
			for _, e := range p.Env {
				fmt.Fprintf(w, "env\t%s\n", envLine(e))
			}
			fmt.Fprintf(w, "revision\t%s\n", rev)
			if p.Pause != nil {
				fmt.Fprintf(w, "paused\t%s\n", pausedLine(*p.Pause))
			}
			return w.Flush()
		},
	}
	addOutputFlag(c, &out)
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	return c
}

// pausedLine is the paused row of `projects show`: since when, by whom
// and why it is paused, or "no".
func pausedLine(st view.ProjectPauseState) string {
	if !st.Paused {
		return "no"
	}
	line := fmt.Sprintf("yes, since %s by %s", fmtMs(&st.AtMs), st.Actor)
	if st.Note != "" {
		line += " (note: " + oneLine(st.Note) + ")"
	}
	return line
}

// shownProject reads the project named name from the database or, given
// --api-url, from the server's project read, whose revision is the same.
func shownProject(cmd *cobra.Command, opts Options, db *dbFlags, name string) (view.Project, error) {
	if db.server != "" {
		c, err := remoteClient(db)
		if err != nil {
			return view.Project{}, err
		}
		var p view.Project
		err = c.get(cmd.Context(), "/api/v1/projects/"+url.PathEscape(name), nil, &p)
		return p, err
	}
	b, err := openExisting(cmd.Context(), opts, db)
	if err != nil {
		return view.Project{}, err
	}
	defer b.Close()
	if b.Definitions == nil {
		return view.Project{}, fmt.Errorf("this build cannot read projects of this database")
	}
	p, err := projectOf(cmd.Context(), b.Definitions, name)
	if err != nil || b.ProjectPauses == nil {
		return p, err
	}
	st, err := b.ProjectPauses.ProjectPauseRead(cmd.Context(), p.ID)
	p.Pause = view.NewProjectPauseState(st)
	return p, err
}

// projectOf reads the project named name and its revision in one
// snapshot.
func projectOf(ctx context.Context, r catalog.DefinitionsReader, name string) (view.Project, error) {
	d, err := r.ProjectDefinitions(ctx, name, apply.RevisionLimit)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return view.Project{}, apply.ProjectMissing(ctx, r, name, nil)
	}
	if err != nil {
		return view.Project{}, err
	}
	return view.NewProject(d.Project, apply.SpecRevision(d)), nil
}

// envLine is one variable of a project's env as `projects show` prints
// it: NAME=value, or NAME from the secret it names.
func envLine(e view.ProjectEnvVar) string {
	if e.Secret != "" {
		return e.Name + " (secret " + e.Secret + ")"
	}
	return e.Name + "=" + oneLine(e.Value)
}
