package console

import (
	"net/http"
	"strconv"

	"github.com/qinglong/qinglong/internal/core/apply"
)

// definitionsDownload sends a project's definitions as a YAML file, the
// file `ql export PROJECT` writes (apply.ExportProject): a backup that
// applies back unchanged, here or with `ql apply -f FILE`.
func (c *Console) definitionsDownload(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Export == nil {
		c.notFound(w, r, s)
		return
	}
	name := r.PathValue("project")
	ex, err := apply.ExportProject(r.Context(), c.cfg.Export, name, boundOf(r.Context()).in())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	// A project's name is lower-case letters, digits, '-', '_' and '.':
	// nothing in it needs quoting in the header.
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.yaml"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(ex.YAML)))
	_, _ = w.Write(ex.YAML) // the browser went away; nothing to do
}
