package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// ProjectEnvField is a project's environment, as its refusals name it:
// the variables every task of the project starts with (WithProjectEnv).
const ProjectEnvField = "project.env"

// ValidateProjectEnv checks a project's environment as a task's is
// checked: how many, each name (QL_* reserved), no name twice, each value
// or secret reference, and UTF-8, its stored form being text.
func ValidateProjectEnv(env []EnvVar) error {
	if err := CheckEnvListOf(ProjectEnvField, env); err != nil {
		return err
	}
	for _, e := range env {
		if err := CheckEnvValueOf(ProjectEnvField, e); err != nil {
			return err
		}
		if !utf8.ValidString(e.Value + e.SecretRef) {
			return invalid("%s.%s: is not valid UTF-8", ProjectEnvField, e.Name).Because(validate.RefusalNotUTF8, "field", ProjectEnvField+"."+e.Name)
		}
	}
	return nil
}

// WithProjectEnv is c as it starts in a project whose environment is
// project: every variable of the project's that c does not set itself,
// and all of c's own, which win over the project's of the same name. Both
// executors (the standalone server's and a cluster worker) call it after
// the execution plan was verified: the project's environment is no part
// of a task revision, so changing it publishes none.
func (c Command) WithProjectEnv(project []EnvVar) Command {
	if len(project) == 0 {
		return c
	}
	own := make(map[string]bool, len(c.Env))
	for _, e := range c.Env {
		own[e.Name] = true
	}
	env := append([]EnvVar(nil), c.Env...)
	for _, e := range project {
		if !own[e.Name] {
			env = append(env, e)
		}
	}
	sort.Slice(env, func(i, j int) bool { return env[i].Name < env[j].Name })
	c.Env = env
	return c
}

// CheckExecSizeIn checks what starting c takes of ARG_MAX with its
// project's environment project (WithProjectEnv): a task that fits alone
// may not once every variable of its project is added.
func (c Command) CheckExecSizeIn(project []EnvVar) error {
	if err := c.CheckExecSize(); err != nil || len(project) == 0 {
		return err
	}
	if n := c.WithProjectEnv(project).ExecSize(); n > MaxExecSize {
		return invalid("task.command: starting it with its project's env takes %d bytes of arguments and environment (each with its NUL and pointer, as Linux counts them), the limit is %d, "+
			"what a task may take of the arguments and environment Linux starts a program with (ARG_MAX); the project env is part of every task's, so shorten the project's env or the task's script, args or env: keep long data in a file and pass its path", n, MaxExecSize).
			Because(validate.RefusalTooLong, "field", "task.command", "size", n, "limit", MaxExecSize)
	}
	return nil
}

// EncodeEnv is the stored form of a project's environment: "" for none,
// else a JSON list of {name, value} or {name, secretRef} in name order —
// a secret's name, never its value.
func EncodeEnv(env []EnvVar) (string, error) {
	if len(env) == 0 {
		return "", nil
	}
	sorted := append([]EnvVar(nil), env...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	docs := make([]envDoc, len(sorted))
	for i, e := range sorted {
		docs[i] = envDoc(e)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(docs); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// DecodeEnv reads EncodeEnv's form strictly, as DecodeCommand reads a
// command: an unknown field or trailing data is an error.
func DecodeEnv(s string) ([]EnvVar, error) {
	if s == "" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var docs []envDoc
	if err := dec.Decode(&docs); err != nil {
		return nil, fmt.Errorf("stored project env: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("stored project env: trailing data after the list")
	}
	env := make([]EnvVar, len(docs))
	for i, d := range docs {
		env[i] = EnvVar(d)
	}
	return env, nil
}
