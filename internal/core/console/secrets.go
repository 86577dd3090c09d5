package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// secretsData is what the secrets page shows: the names the secrets file
// defines and those the definitions use, never a value.
type secretsData struct {
	// Here is false where the commands run on other machines, which hold
	// the secrets: the page then says where they are kept instead.
	Here bool
	File string
	// Rows are the listing's names, those used but missing first.
	Rows                []apply.SecretEntry
	UsesKnown, Complete bool
	// FileError is why the secrets file cannot be used, in the page's
	// language: nothing is listed and nothing can be set until it is
	// fixed.
	FileError string
	// Name is the set form's name: a row's to replace, or the one just
	// refused (its value is never sent back).
	Name string
	// Error is why the form's secret was not set, naming the field.
	Error string
	// Done is what the last change did (after its redirect).
	Done *secretDone
	// Confirm is the secret a delete asks to be confirmed.
	Confirm *apply.SecretEntry
}

// secretDone is the notice of a change: the name, which change, and the
// uses the name has now.
type secretDone struct {
	Name string
	// Kind is "created", "replaced", "deleted" or "absent" (a delete of a
	// name that was not defined: nothing changed).
	Kind string
	Uses []apply.SecretUse
}

// secretsPage lists the secrets and the set form; ?name= fills the
// form's name (a row's replace), ?delete= asks to confirm a delete, and
// ?set= or ?deleted= are the notice of the change a form just made.
func (c *Console) secretsPage(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	c.renderSecrets(w, r, s, http.StatusOK, secretsData{Name: q.Get("name")})
}

// renderSecrets shows the page with d's form and message fields, and the
// listing as the file and the definitions hold it now.
func (c *Console) renderSecrets(w http.ResponseWriter, r *http.Request, s *session, status int, d secretsData) {
	if c.cfg.Secrets == nil {
		c.render(w, r, http.StatusOK, "secrets", s, d)
		return
	}
	d.Here, d.File = true, c.cfg.Secrets.Path
	list, err := apply.ListSecrets(r.Context(), c.cfg.Export, *c.cfg.Secrets)
	var fe *process.SecretsFileError
	switch {
	case errors.As(err, &fe):
		d.FileError = secretsFileText(lang(r), fe)
		c.render(w, r, http.StatusConflict, "secrets", s, d)
		return
	case err != nil:
		c.fail(w, r, s, err)
		return
	}
	d.UsesKnown, d.Complete = list.UsesKnown, list.Complete
	// Used but missing first: every Run that needs one fails until it is
	// set.
	d.Rows = list.Secrets
	slices.SortStableFunc(d.Rows, func(a, b apply.SecretEntry) int { return boolOrder(missing(a), missing(b)) })
	q := r.URL.Query()
	if r.Method == http.MethodGet {
		d.Done = doneOf(q, d.Rows)
		if name := q.Get("delete"); name != "" {
			if i := slices.IndexFunc(d.Rows, func(e apply.SecretEntry) bool { return e.Name == name && e.Defined }); i >= 0 {
				d.Confirm = &d.Rows[i]
			}
		}
	}
	c.render(w, r, status, "secrets", s, d)
}

// doneOf is the notice the address's ?set= or ?deleted= asks for, when
// the file agrees with it (an address typed by hand says nothing false).
func doneOf(q url.Values, rows []apply.SecretEntry) *secretDone {
	find := func(name string) (apply.SecretEntry, bool) {
		i := slices.IndexFunc(rows, func(e apply.SecretEntry) bool { return e.Name == name })
		if i < 0 {
			return apply.SecretEntry{Name: name}, false
		}
		return rows[i], true
	}
	if name := q.Get("set"); name != "" {
		if e, ok := find(name); ok && e.Defined {
			kind := "created"
			if q.Get("replaced") == "1" {
				kind = "replaced"
			}
			return &secretDone{Name: name, Kind: kind, Uses: e.UsedBy}
		}
	}
	if name := q.Get("deleted"); name != "" {
		if e, _ := find(name); !e.Defined {
			kind := "deleted"
			if q.Get("absent") == "1" {
				kind = "absent"
			}
			return &secretDone{Name: name, Kind: kind, Uses: e.UsedBy}
		}
	}
	return nil
}

func missing(e apply.SecretEntry) bool { return !e.Defined && len(e.UsedBy) > 0 }

// boolOrder orders true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// secretSet stores the form's value under its name and redirects to the
// page's notice; a mistake is said on the form, which keeps the name and
// never the value.
func (c *Console) secretSet(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Secrets == nil {
		c.renderSecrets(w, r, s, http.StatusOK, secretsData{})
		return
	}
	l := lang(r)
	name := strings.TrimSpace(r.PostFormValue("name"))
	value := textArea(r, "value")
	if msg := secretFormError(l, name, value); msg != "" {
		c.renderSecrets(w, r, s, http.StatusBadRequest, secretsData{Name: name, Error: msg})
		return
	}
	replaced, err := c.cfg.Secrets.Set(name, value)
	if err != nil {
		c.refuseSecret(w, r, s, name, err)
		return
	}
	c.cfg.Log.Info("console: secret set", "code", process.CodeSecretSet, "secret", name, "replaced", replaced, "actor", s.actor(r))
	if err := c.recordSecret(r, audit.Secret(audit.SecretSet, s.actor(r), name, replaced), "secret "+name+" was set in "+c.cfg.Secrets.Path); err != nil {
		c.fail(w, r, s, err)
		return
	}
	to := "/secrets?set=" + url.QueryEscape(name)
	if replaced {
		to += "&replaced=1"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// secretDelete deletes the form's secret, which the page's confirmation
// sends, and redirects to the page's notice.
func (c *Console) secretDelete(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Secrets == nil {
		c.renderSecrets(w, r, s, http.StatusOK, secretsData{})
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	existed, err := c.cfg.Secrets.Delete(name)
	if err != nil {
		c.refuseSecret(w, r, s, "", err)
		return
	}
	to := "/secrets?deleted=" + url.QueryEscape(name)
	if existed {
		c.cfg.Log.Info("console: secret deleted", "code", process.CodeSecretDeleted, "secret", name, "actor", s.actor(r))
		if err := c.recordSecret(r, audit.Secret(audit.SecretDeleted, s.actor(r), name, false), "secret "+name+" was deleted from "+c.cfg.Secrets.Path); err != nil {
			c.fail(w, r, s, err)
			return
		}
	} else {
		to += "&absent=1"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// recordSecret records e, the change done of a secret, once it has
// succeeded in the file: a record that cannot be written is the change
// standing unrecorded (audit.RecordDone), logged with who made it.
func (c *Console) recordSecret(r *http.Request, e audit.Entry, done string) error {
	if c.cfg.SecretsRecord == nil {
		return nil
	}
	err := audit.RecordDone(r.Context(), c.cfg.SecretsRecord, e, done)
	if err != nil {
		c.cfg.Log.Error("console: secret change not recorded", "code", audit.CodeNotRecorded, "action", string(e.Action), "secret", e.ObjectName, "actor", e.Actor, "error", err.Error())
	}
	return err
}

// refuseSecret says on the page why the file was not changed: one it
// cannot use or write, or a name it refuses; what is not the user's to
// fix is the error page's.
func (c *Console) refuseSecret(w http.ResponseWriter, r *http.Request, s *session, name string, err error) {
	l := lang(r)
	var fe *process.SecretsFileError
	switch {
	case errors.As(err, &fe):
		c.renderSecrets(w, r, s, http.StatusConflict, secretsData{Name: name, Error: secretsFileText(l, fe)})
	case qlerror.CodeOf(err) == qlerror.Invalid:
		c.renderSecrets(w, r, s, http.StatusBadRequest, secretsData{Name: name, Error: c.formError(l, err)})
	case qlerror.CodeOf(err) == qlerror.PermissionDenied || qlerror.CodeOf(err) == qlerror.NotFound || qlerror.CodeOf(err) == qlerror.Unavailable:
		c.renderSecrets(w, r, s, http.StatusConflict, secretsData{Name: name, Error: c.formError(l, err)})
	default:
		c.fail(w, r, s, err)
	}
}

// secretFormError is what is wrong with the form's name or value in
// language l, starting with the field's label, "" when nothing is. It
// never quotes the value.
func secretFormError(l, name, value string) string {
	field := func(label, key string, args ...any) string {
		return tr(l, label) + tr(l, "def.sep") + fmt.Sprintf(tr(l, key), args...)
	}
	switch {
	case name == "":
		return field("sec.name", "nt.blank")
	case process.CheckSecretName(name) != nil:
		return field("sec.name", "sec.err.name", name, process.MaxSecretNameLen)
	case value == "":
		return field("sec.value", "sec.err.empty")
	case len(value) < process.MinSecretLen:
		return field("sec.value", "sec.err.short", len(value), process.MinSecretLen)
	case len(value) > process.MaxSecretLen:
		return field("sec.value", "sec.err.long", len(value), process.MaxSecretLen)
	case strings.ContainsRune(value, 0):
		return field("sec.value", "sec.err.nul")
	case !utf8.ValidString(value):
		return field("sec.value", "sec.err.utf8")
	}
	return ""
}

// secretsFileText says in l why the secrets file cannot be used, as the
// definitions page's note does (English: the error's own sentence).
func secretsFileText(l string, fe *process.SecretsFileError) string {
	why, ok := notes[l].causes[fe.Cause]
	if !ok {
		return fe.Error()
	}
	params := map[string]string{"file": fe.Path}
	for k, v := range fe.Params {
		params[k] = v
	}
	why = placeholder.ReplaceAllStringFunc(why, func(m string) string {
		if v, ok := params[m[1:len(m)-1]]; ok {
			return v
		}
		ok = false
		return m
	})
	if !ok {
		return fe.Error()
	}
	return fmt.Sprintf(tr(l, "sec.unusable"), fe.Path, why)
}
