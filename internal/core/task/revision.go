package task

import (
	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Revision is one immutable published version of a task.
type Revision struct {
	TaskID        string
	ProjectID     string
	Revision      int64
	Spec          Spec
	ContentDigest string
	MutationID    string
	CreatedAtMs   int64
}

// NewRevision validates and normalises spec and returns the revision that
// publishing `expected+1` would write. Timestamps are the store's to set.
func NewRevision(projectID, taskID string, expected int64, mutationID string, spec Spec) (Revision, error) {
	if err := ids.Validate("task.projectId", projectID); err != nil {
		return Revision{}, qlerror.Wrap(qlerror.Invalid, err, "invalid task")
	}
	if err := ids.Validate("task.id", taskID); err != nil {
		return Revision{}, qlerror.Wrap(qlerror.Invalid, err, "invalid task")
	}
	if expected < 0 {
		return Revision{}, qlerror.New(qlerror.Invalid, "task.expectedRevision: %d must be 0 (create) or the current revision", expected)
	}
	if err := validate.MutationID("task.mutationId", mutationID); err != nil {
		return Revision{}, err
	}
	spec = spec.Normalize()
	if err := spec.Validate(); err != nil {
		return Revision{}, err
	}
	return Revision{
		TaskID:        taskID,
		ProjectID:     projectID,
		Revision:      expected + 1,
		Spec:          spec,
		ContentDigest: ContentDigest(projectID, taskID, spec),
		MutationID:    mutationID,
	}, nil
}

// ContentDigest hashes every semantic field of a task revision: not the
// revision number, timestamps or mutation id, so republishing identical
// content is recognisable as such.
func ContentDigest(projectID, taskID string, s Spec) string {
	s = s.Normalize()
	b := digest.New(SpecKind).
		String("projectId", projectID).
		String("taskId", taskID).
		String("name", s.Name).
		Bool("enabled", s.Enabled).
		Map("labels", s.Labels)
	writeCommand(b, s.Command)
	return b.Sum()
}

func writeCommand(b *digest.Builder, c Command) {
	b.String("mode", string(c.Mode)).
		String("path", c.Path).
		Strings("args", c.Args).
		String("shell", c.Shell).
		String("script", c.Script)
	names := make([]string, 0, len(c.Env))
	values := make([]string, 0, len(c.Env))
	refs := make([]string, 0, len(c.Env))
	for _, e := range c.Env {
		names = append(names, e.Name)
		values = append(values, e.Value)
		refs = append(refs, e.SecretRef)
	}
	b.Strings("env.names", names).Strings("env.values", values).Strings("env.secretRefs", refs).
		String("workingDir", c.WorkingDir).
		Int("timeoutMs", c.TimeoutMs)
	// Fields added after the first stored revisions are written only when
	// set, so the digests of revisions without them stay what they were.
	if !c.RunAs.IsZero() {
		b.String("runAs.user", c.RunAs.User).String("runAs.group", c.RunAs.Group)
	}
	if c.KillGraceMs != 0 {
		b.Int("killGraceMs", c.KillGraceMs)
	}
	if !c.Retry.IsZero() {
		b.Int("retry.maxAttempts", int64(c.Retry.MaxAttempts)).
			Int("retry.backoffMs", c.Retry.BackoffMs).
			Strings("retry.on", c.Retry.On)
	}
	if !c.Placement.IsZero() {
		b.Map("placement.labels", c.Placement.Labels)
	}
}

// VerifyDigest recomputes the content digest; a mismatch means the stored
// revision was altered and must not be used.
func (r Revision) VerifyDigest() error {
	if got := ContentDigest(r.ProjectID, r.TaskID, r.Spec); got != r.ContentDigest {
		return qlerror.New(qlerror.Internal, "task %s revision %d: content digest mismatch (stored %s, computed %s); the revision was altered outside QingLong", r.TaskID, r.Revision, r.ContentDigest, got)
	}
	return nil
}
