package cli

import (
	"encoding/json"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// addOutputFlag registers --output table|json.
func addOutputFlag(c *cobra.Command, out *string) {
	c.Flags().StringVarP(out, "output", "o", "table", "output format: table or json")
}

func checkOutput(out string) error {
	if out != "table" && out != "json" {
		return Usagef("--output %q is not one of table, json", out)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// fmtMs renders epoch milliseconds as UTC RFC 3339, "-" for none.
func fmtMs(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
