package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/deps"
)

func depsMirrorCommand(opts Options) *cobra.Command {
	var db dbFlags
	var registry, proxy, out string
	c := &cobra.Command{
		Use:   "mirror [TYPE]",
		Short: "Show, or set, the registry and proxy npm and pip fetch packages through",
		Long: `Without TYPE, show the registry (npm) or index (pip) and the HTTP(S) proxy each installer fetches
through; -o json prints what GET /api/v1/dependencies/mirrors answers. With TYPE (node or
python), set them: --registry URL (npm's --registry; pip's -i, with --trusted-host its host),
--proxy URL (HTTPS_PROXY and HTTP_PROXY of the installer), each an http:// or https:// URL
without user or password; a flag given as "" puts back the installer's default, a flag not
given keeps what is set. The next install uses them. Setting needs --api-url.
` + apiHelp("deps mirror"),
		Example: "  " + opts.Binary + " deps mirror node --registry https://registry.npmmirror.com --api-url https://ql.example.com:8080\n  " +
			opts.Binary + " deps mirror python --registry https://pypi.tuna.tsinghua.edu.cn/simple --api-url https://ql.example.com:8080\n  " +
			opts.Binary + " deps mirror --data-dir /var/lib/qinglong",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if len(args) == 0 {
				return depsMirrorList(cmd, opts, &db, out)
			}
			k, err := deps.ParseKind(args[0])
			if err != nil {
				return Usagef("%s", err.Error())
			}
			fs := cmd.Flags()
			if !fs.Changed("registry") && !fs.Changed("proxy") {
				return Usagef("deps mirror %s sets --registry URL, --proxy URL or both (\"\" for the installer's default); without a type it shows them", k)
			}
			if db.server == "" {
				return Usagef("%s sets what the server's installers fetch through: give --api-url URL with an admin token in $QL_TOKEN", remotePath(cmd))
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			all, err := b.Dependencies.DependencyMirrors(cmd.Context())
			if err != nil {
				return err
			}
			m := deps.Mirror{Kind: k}
			for _, x := range all {
				if x.Kind == k {
					m = x
				}
			}
			if fs.Changed("registry") {
				m.Registry = registry
			}
			if fs.Changed("proxy") {
				m.Proxy = proxy
			}
			kept, err := b.Dependencies.DependencyMirrorSet(cmd.Context(), "", m)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: registry %s, proxy %s; the next install fetches through them\n", k, orDefault(kept.Registry), orDefault(kept.Proxy))
			return err
		},
	}
	c.Flags().StringVar(&registry, "registry", "", "npm's registry or pip's index URL (\"\": the installer's default)")
	c.Flags().StringVar(&proxy, "proxy", "", "the HTTP(S) proxy URL the installer fetches through (\"\": none)")
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	return c
}

// depsMirrorList prints the mirror of every kind that takes one.
func depsMirrorList(cmd *cobra.Command, opts Options, db *dbFlags, out string) error {
	b, err := openExisting(cmd.Context(), opts, db)
	if err != nil {
		return err
	}
	defer b.Close()
	if b.Dependencies == nil {
		return Usagef("this database keeps no dependencies: the commands run on the workers' hosts, which install their own")
	}
	list, err := b.Dependencies.DependencyMirrors(cmd.Context())
	if err != nil {
		return err
	}
	return printListing(cmd, out, listing[deps.Mirror]{
		json: struct {
			Mirrors []deps.Mirror `json:"mirrors"`
		}{list},
		header: []string{"TYPE", "REGISTRY", "PROXY", "SET"},
		items:  list,
		row: func(m deps.Mirror) []string {
			set := "-"
			if m.Actor != "" {
				set = fmtMs(&m.AtMs) + " " + m.Actor
			}
			return []string{string(m.Kind), orDefault(m.Registry), orDefault(m.Proxy), set}
		},
		none: NoneLine("mirror", false, "`"+opts.Binary+" deps mirror node --registry URL --api-url URL` sets one"),
	})
}

// orDefault is a mirror's field as a listing says it.
func orDefault(v string) string {
	if v == "" {
		return "(default)"
	}
	return v
}
