package cli

import (
	"fmt"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/view"
)

func projectsListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	ql := opts.Binary
	c := &cobra.Command{
		Use:   "list",
		Short: "List the projects in name order, with their status and whether they are paused",
		Long: `Print every project's name, display title, status (active or archived) and whether it is paused
as a whole (` + "`" + ql + ` projects pause` + "`" + `; a trigger paused on its own does not count), in name order: all of them, read
` + fmt.Sprintf("%d", view.ProjectListLimit) + ` at a time from the database or the server. ` + "`" + ql + ` projects show PROJECT` + "`" + ` gives one project's revision and its pause's note, author and time.

` + apiHelp("projects list") + opts.clusterOnly(`
On the cluster both the admin and the runtime role's URL may read it.`),
		Example: "  " + ql + " projects list\n" +
			"  " + ql + " projects list -o json | jq -r '.projects[] | select(.paused) | .name'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			l, err := listedProjects(cmd, opts, &db)
			if err != nil {
				return err
			}
			if out == "json" {
				return writeJSON(cmd.OutOrStdout(), l)
			}
			if len(l.Projects) == 0 {
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "no project yet; `%s apply -f FILE` creates one\n", ql)
				return err
			}
			w := NewTable(cmd.OutOrStdout())
			fmt.Fprintln(w, "PROJECT\tTITLE\tSTATUS\tPAUSED")
			for _, p := range l.Projects {
				paused := "no"
				if p.Paused {
					paused = "yes"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.Name, orDash(p.Title), p.Status, paused)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if l.More {
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "(the first %d projects by name; the server lists no more, and there are more: upgrade it, or `%s projects show PROJECT` reads any by name)\n", len(l.Projects), ql)
			}
			return err
		},
	}
	addOutputFlag(c, &out)
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	return c
}

// listedProjects reads every project from the database or, given
// --api-url, from the server's project list, a page at a time.
func listedProjects(cmd *cobra.Command, opts Options, db *dbFlags) (view.ProjectList, error) {
	if db.server != "" {
		c, err := remoteClient(db)
		if err != nil {
			return view.ProjectList{}, err
		}
		return everyProject(func(after string) (view.ProjectList, error) {
			var q url.Values
			if after != "" {
				q = url.Values{"after": {after}}
			}
			var l view.ProjectList
			err := c.get(cmd.Context(), "/api/v1/projects", q, &l)
			return l, err
		})
	}
	b, err := openExisting(cmd.Context(), opts, db)
	if err != nil {
		return view.ProjectList{}, err
	}
	defer b.Close()
	if b.Definitions == nil {
		return view.ProjectList{}, fmt.Errorf("this build cannot read projects of this database")
	}
	return everyProject(func(after string) (view.ProjectList, error) {
		names, err := b.Definitions.ProjectNames(cmd.Context(), after, view.ProjectListLimit+1, nil)
		return view.NewProjectList(names, view.ProjectListLimit), err
	})
}

// everyProject is the projects of every page read (page), the first
// page's first and each next one's after the page before's next. A
// server of an earlier release gives no next: its one page, with more,
// is what there is to list.
func everyProject(page func(after string) (view.ProjectList, error)) (view.ProjectList, error) {
	all := view.ProjectList{Projects: []view.ProjectListed{}}
	for after := ""; ; {
		l, err := page(after)
		if err != nil {
			return view.ProjectList{}, err
		}
		all.Projects = append(all.Projects, l.Projects...)
		if l.Next == "" {
			all.More = l.More
			return all, nil
		}
		if l.Next == after {
			return view.ProjectList{}, fmt.Errorf("the server's project list does not move past %q: the page after it is the same page again; upgrade the server, or read the projects where its database is", after)
		}
		after = l.Next
	}
}
