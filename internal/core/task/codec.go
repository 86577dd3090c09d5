package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// CommandFormat is the version of the stored form EncodeCommand writes.
// A document without a format field is the unversioned form written before
// the field existed: the same field names, so it decodes alike.
const CommandFormat = 1

// commandDoc is the stored form of a Command, shared by every adapter.
// Field names are explicit so the stored form stays stable whatever the Go
// names become. Empty optional fields are omitted: a revision without runAs,
// killGrace, retry or placement stores what it stored before those fields
// existed.
type commandDoc struct {
	Format      int       `json:"format"`
	Mode        string    `json:"mode"`
	Path        string    `json:"path,omitempty"`
	Args        []string  `json:"args,omitempty"`
	Shell       string    `json:"shell,omitempty"`
	Script      string    `json:"script,omitempty"`
	Env         []envDoc  `json:"env,omitempty"`
	WorkingDir  string    `json:"workingDir,omitempty"`
	TimeoutMs   int64     `json:"timeoutMs"`
	RunAs       *runAsDoc `json:"runAs,omitempty"`
	KillGraceMs int64     `json:"killGraceMs,omitempty"`
	Retry       *retryDoc `json:"retry,omitempty"`
	Placement   *placeDoc `json:"placement,omitempty"`
}

type retryDoc struct {
	MaxAttempts int      `json:"maxAttempts"`
	BackoffMs   int64    `json:"backoffMs"`
	On          []string `json:"on"`
}

// placeDoc's labels encode in sorted key order (encoding/json sorts map
// keys), so equal placements store alike.
type placeDoc struct {
	Labels map[string]string `json:"labels"`
}

type runAsDoc struct {
	User  string `json:"user"`
	Group string `json:"group,omitempty"`
}

// envDoc stores a public value or a secret reference — never a secret's
// value, which only the executor resolves at start.
type envDoc struct {
	Name      string `json:"name"`
	Value     string `json:"value,omitempty"`
	SecretRef string `json:"secretRef,omitempty"`
}

// EncodeCommand returns the stored form of c: JSON, one field order, no
// insignificant space, so equal commands always encode to equal bytes.
// Every string must be valid UTF-8: JSON would silently replace a bad byte,
// and the stored command would then no longer match its digest.
func EncodeCommand(c Command) ([]byte, error) {
	if field, ok := invalidUTF8(c); ok {
		return nil, qlerror.New(qlerror.Invalid, "task.command.%s: is not valid UTF-8; commands are stored as text", field)
	}
	d := commandDoc{Format: CommandFormat, Mode: string(c.Mode), Path: c.Path, Args: c.Args, Shell: c.Shell, Script: c.Script,
		WorkingDir: c.WorkingDir, TimeoutMs: c.TimeoutMs, KillGraceMs: c.KillGraceMs}
	if !c.RunAs.IsZero() {
		d.RunAs = &runAsDoc{User: c.RunAs.User, Group: c.RunAs.Group}
	}
	if !c.Retry.IsZero() {
		d.Retry = &retryDoc{MaxAttempts: c.Retry.MaxAttempts, BackoffMs: c.Retry.BackoffMs, On: c.Retry.On}
	}
	if !c.Placement.IsZero() {
		d.Placement = &placeDoc{Labels: c.Placement.Labels}
	}
	for _, e := range c.Env {
		d.Env = append(d.Env, envDoc(e))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Scripts are full of <, > and &: keep them readable in the database.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// DecodeCommand reads a stored command: the current format and the
// unversioned form before it. Decoding is strict — an unknown field, a
// format newer than this build, trailing data or a document without a mode
// is an error — so a stored command is never half understood. Empty lists
// decode as nil, whichever form stored them.
func DecodeCommand(b []byte) (Command, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d commandDoc
	if err := dec.Decode(&d); err != nil {
		return Command{}, fmt.Errorf("stored command: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Command{}, errors.New("stored command: trailing data after the document")
	}
	if d.Format < 0 || d.Format > CommandFormat {
		return Command{}, fmt.Errorf("stored command has format %d; this build reads formats up to %d: upgrade QingLong", d.Format, CommandFormat)
	}
	if d.Mode == "" {
		return Command{}, errors.New("stored command has no mode")
	}
	c := Command{Mode: Mode(d.Mode), Path: d.Path, Shell: d.Shell, Script: d.Script, WorkingDir: d.WorkingDir,
		TimeoutMs: d.TimeoutMs, KillGraceMs: d.KillGraceMs}
	if len(d.Args) > 0 {
		c.Args = d.Args
	}
	if d.RunAs != nil {
		c.RunAs = RunAs{User: d.RunAs.User, Group: d.RunAs.Group}
	}
	if d.Retry != nil {
		c.Retry = RetryPolicy{MaxAttempts: d.Retry.MaxAttempts, BackoffMs: d.Retry.BackoffMs}
		if len(d.Retry.On) > 0 {
			c.Retry.On = d.Retry.On
		}
	}
	if d.Placement != nil && len(d.Placement.Labels) > 0 {
		c.Placement = Placement{Labels: d.Placement.Labels}
	}
	for _, e := range d.Env {
		c.Env = append(c.Env, EnvVar(e))
	}
	return c, nil
}

// invalidUTF8 names the first field of c holding a string that is not
// valid UTF-8.
func invalidUTF8(c Command) (string, bool) {
	fields := []struct{ name, value string }{
		{"mode", string(c.Mode)}, {"path", c.Path}, {"shell", c.Shell}, {"script", c.Script},
		{"workingDir", c.WorkingDir}, {"runAs.user", c.RunAs.User}, {"runAs.group", c.RunAs.Group},
	}
	for i, a := range c.Args {
		fields = append(fields, struct{ name, value string }{fmt.Sprintf("args[%d]", i), a})
	}
	for _, e := range c.Env {
		fields = append(fields, struct{ name, value string }{"env." + e.Name, e.Name + e.Value + e.SecretRef})
	}
	for _, o := range c.Retry.On {
		fields = append(fields, struct{ name, value string }{"retry.on", o})
	}
	for k, v := range c.Placement.Labels {
		fields = append(fields, struct{ name, value string }{"placement.labels", k + v})
	}
	for _, f := range fields {
		if !utf8.ValidString(f.value) {
			return f.name, true
		}
	}
	return "", false
}
