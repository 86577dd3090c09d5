package httpapi

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// maxSecretBody bounds PUT /api/v1/secrets/{name}'s body: the longest
// value JSON-escaped at its widest (\u00XX for each byte) and the object
// around it. The server-wide cap is far larger, sized for definitions
// files.
const maxSecretBody = 6*process.MaxSecretLen + 1024

// errNoSecretsFile answers the secrets routes of a server that runs no
// command itself: the file a Run reads is on the machine that runs it,
// and this server's own would be another.
var errNoSecretsFile = qlerror.New(qlerror.FailedPrecondition, "this server keeps no secrets file the commands use: "+
	"each machine that runs them reads its own; run `ql secrets set NAME --secrets-file FILE` on that machine instead").Because(RefusalNotOverTheAPI)

// secretSetBody is PUT /api/v1/secrets/{name}'s body.
type secretSetBody struct {
	Value *string `json:"value" doc:"Required: the secret's value, from 4 to 32768 bytes of UTF-8 text without a NUL byte (secret_value_short, secret_value_long, secret_value_nul, secret_value_not_utf8); it replaces the value the name had, and the next attempt that starts reads it. Never answered."`
}

// secretList lists the names the server's secrets file defines beside
// the uses the current definitions make of them; never a value, nor the
// file's path: a token holder works through the API and need not know
// the host's layout (the console shows the path to an owner).
func (a *api) secretList(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Secrets == nil {
		return nil, errNoSecretsFile
	}
	l, err := apply.ListSecrets(ctx, a.Export, *a.Secrets)
	l.File = ""
	return l, err
}

// secretSet stores a secret's value, replacing the file in one rename;
// the next attempt that starts reads it, without a restart.
func (a *api) secretSet(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Secrets == nil {
		return nil, errNoSecretsFile
	}
	name := r.PathValue("name")
	if err := process.CheckSecretName(name); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxSecretBody+1))
	if err != nil {
		return nil, tooLarge(err, a.guard.limits.MaxBody)
	}
	if len(raw) > maxSecretBody {
		return nil, qlerror.New(codeTooLarge, "the request body is larger than %d bytes; a secret's value holds at most %d bytes", maxSecretBody, process.MaxSecretLen).
			Because(RefusalBodyTooLarge, "max", maxSecretBody)
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	var body secretSetBody
	if err := a.decodeBody(r, &body); err != nil {
		return nil, err
	}
	if body.Value == nil {
		return nil, qlerror.New(qlerror.Invalid, `give the secret's value as {"value": "..."}`).Because(RefusalBodyFieldMissing, "field", "value")
	}
	replaced, err := a.Secrets.Set(name, *body.Value)
	if err != nil {
		return nil, err
	}
	actor := principalOf(ctx).actor()
	a.Log.Info("secret set", slog.String("code", process.CodeSecretSet), slog.String("secret", name), slog.Bool("replaced", replaced),
		slog.String("actor", actor))
	if err := a.recordSecret(ctx, audit.Secret(audit.SecretSet, actor, name, replaced), "secret "+name+" was set in the server's secrets file"); err != nil {
		return nil, err
	}
	return struct {
		Name     string `json:"name"`
		Replaced bool   `json:"replaced"`
	}{name, replaced}, nil
}

// secretDelete removes a secret from the file; a name it does not define
// is not found, so a mistyped name is not taken for done.
func (a *api) secretDelete(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Secrets == nil {
		return nil, errNoSecretsFile
	}
	name := r.PathValue("name")
	existed, err := a.Secrets.Delete(name)
	if err != nil {
		return nil, err
	}
	if !existed {
		return nil, qlerror.New(qlerror.NotFound, "secret %q is not defined in the server's secrets file; GET /api/v1/secrets lists the names it defines", name).
			Because(RefusalSecretMissing, "name", name)
	}
	actor := principalOf(ctx).actor()
	a.Log.Info("secret deleted", slog.String("code", process.CodeSecretDeleted), slog.String("secret", name),
		slog.String("actor", actor))
	if err := a.recordSecret(ctx, audit.Secret(audit.SecretDeleted, actor, name, false), "secret "+name+" was deleted from the server's secrets file"); err != nil {
		return nil, err
	}
	return struct {
		Name    string `json:"name"`
		Deleted bool   `json:"deleted"`
	}{name, true}, nil
}

// recordSecret records e, the change done of a secret, once it has
// succeeded in the file: a record that cannot be written is answered as
// the change standing unrecorded (audit.RecordDone), and logged as such
// with who made it, so that the server's log keeps what the trail lacks.
func (a *api) recordSecret(ctx context.Context, e audit.Entry, done string) error {
	if a.SecretsRecord == nil {
		return nil
	}
	err := audit.RecordDone(ctx, a.SecretsRecord, e, done)
	if err != nil {
		a.Log.Error("secret change not recorded", slog.String("code", audit.CodeNotRecorded), slog.String("action", string(e.Action)),
			slog.String("secret", e.ObjectName), slog.String("actor", e.Actor), slog.String("error", err.Error()))
	}
	return err
}
