package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/qinglong/qinglong/internal/run"
)

// runJSON is the API's stable shape of a Run.
type runJSON struct {
	ID                  string    `json:"id"`
	ProjectID           string    `json:"projectId"`
	ProjectName         string    `json:"projectName,omitempty"`
	TaskID              string    `json:"taskId"`
	TaskRevision        int64     `json:"taskRevision"`
	TriggerID           string    `json:"triggerId,omitempty"`
	TriggerRevision     int64     `json:"triggerRevision,omitempty"`
	TriggerName         string    `json:"triggerName,omitempty"`
	ExecutionRevisionID string    `json:"executionRevisionId"`
	IdempotencyKey      string    `json:"idempotencyKey"`
	ScheduledForMs      int64     `json:"scheduledForMs"`
	State               run.State `json:"state"`
	Version             int64     `json:"version"`
	LastEventSeq        int64     `json:"lastEventSeq"`
	CreatedAtMs         int64     `json:"createdAtMs"`
	QueuedAtMs          int64     `json:"queuedAtMs,omitempty"`
	UpdatedAtMs         int64     `json:"updatedAtMs"`
	FinishedAtMs        *int64    `json:"finishedAtMs"`
}

type attemptJSON struct {
	ID           string           `json:"id"`
	Number       int64            `json:"number"`
	Executor     string           `json:"executor"`
	State        run.AttemptState `json:"state"`
	ExitCode     *int64           `json:"exitCode"`
	ErrorCode    string           `json:"errorCode,omitempty"`
	CreatedAtMs  int64            `json:"createdAtMs"`
	StartedAtMs  *int64           `json:"startedAtMs"`
	FinishedAtMs *int64           `json:"finishedAtMs"`
	LogBytes     int64            `json:"logBytes"`
	LogTruncated bool             `json:"logTruncated"`
}

type eventJSON struct {
	Seq         int64           `json:"seq"`
	Name        string          `json:"name"`
	Payload     json.RawMessage `json:"payload"`
	CreatedAtMs int64           `json:"createdAtMs"`
}

type runListJSON struct {
	Runs []runJSON `json:"runs"`
	Next string    `json:"next,omitempty"`
}

type runDetailJSON struct {
	Run      runJSON       `json:"run"`
	Attempts []attemptJSON `json:"attempts"`
	Events   []eventJSON   `json:"events"`
}

func toRunJSON(r run.Run) runJSON {
	return runJSON{
		ID: r.ID, ProjectID: r.ProjectID, ProjectName: r.ProjectName, TaskID: r.TaskID, TaskRevision: r.TaskRevision,
		TriggerID: r.TriggerID, TriggerRevision: r.TriggerRevision, TriggerName: r.TriggerName, ExecutionRevisionID: r.ExecutionRevisionID,
		IdempotencyKey: r.IdempotencyKey, ScheduledForMs: r.ScheduledForMs, State: r.State, Version: r.Version,
		LastEventSeq: r.LastEventSeq, CreatedAtMs: r.CreatedAtMs, QueuedAtMs: r.QueuedAtMs, UpdatedAtMs: r.UpdatedAtMs,
		FinishedAtMs: r.FinishedAtMs,
	}
}

func (a *api) runList(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "after", "limit", "project", "state", "trigger")
	if err != nil {
		return nil, err
	}
	n, err := limit(q["limit"], run.DefaultPageSize, run.MaxPageSize)
	if err != nil {
		return nil, err
	}
	list, next, err := a.Runs.RunList(ctx, run.ListParams{ProjectID: q["project"], TriggerID: q["trigger"], State: run.State(q["state"]), Limit: n, After: q["after"]})
	if err != nil {
		return nil, err
	}
	out := runListJSON{Runs: make([]runJSON, 0, len(list)), Next: next}
	for _, x := range list {
		out.Runs = append(out.Runs, toRunJSON(x))
	}
	return out, nil
}

func (a *api) runGet(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	d, err := a.Runs.RunGet(ctx, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	out := runDetailJSON{Run: toRunJSON(d.Run), Attempts: make([]attemptJSON, 0, len(d.Attempts)), Events: make([]eventJSON, 0, len(d.Events))}
	for _, x := range d.Attempts {
		out.Attempts = append(out.Attempts, attemptJSON{
			ID: x.ID, Number: x.Number, Executor: x.Executor, State: x.State, ExitCode: x.ExitCode, ErrorCode: x.ErrorCode,
			CreatedAtMs: x.CreatedAtMs, StartedAtMs: x.StartedAtMs, FinishedAtMs: x.FinishedAtMs, LogBytes: x.LogBytes, LogTruncated: x.LogTruncated,
		})
	}
	for _, e := range d.Events {
		payload := json.RawMessage(e.Payload)
		if !json.Valid(payload) {
			payload = json.RawMessage("{}")
		}
		out.Events = append(out.Events, eventJSON{Seq: e.Seq, Name: e.Name, Payload: payload, CreatedAtMs: e.CreatedAtMs})
	}
	return out, nil
}
