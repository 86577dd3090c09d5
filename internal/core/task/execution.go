package task

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// ExecutionKind names the immutable execution plan format.
const ExecutionKind = "qinglong/command-execution@v1"

// Executor says who runs a plan.
type Executor string

const (
	// RemoteWorker means a cluster worker, never the control replica.
	RemoteWorker Executor = "remote_worker"
	// LocalProcess means the single-node profiles' in-process executor.
	LocalProcess Executor = "local_process"
)

// Execution is the immutable plan written in the same transaction as an
// enabled task revision. Admission pins it and fails closed when it is
// missing or its digest does not verify: it is never repaired silently.
type Execution struct {
	ID                string // qltd:v1:<taskRevision>:<taskContentDigest>
	ProjectID         string
	TaskID            string
	TaskRevision      int64
	TaskContentDigest string
	Executor          Executor
	Command           Command
	Digest            string
	// ProjectEnv is the env of the project as the attempt starts, read
	// with the plan by the standalone store: no part of the plan or its
	// digest, since changing it publishes no revision. The executor
	// starts Command.WithProjectEnv(ProjectEnv).
	ProjectEnv []EnvVar
}

// ExecutionID is the deterministic identity of the plan of a task revision.
func ExecutionID(taskRevision int64, taskContentDigest string) string {
	return fmt.Sprintf("qltd:v1:%d:%s", taskRevision, taskContentDigest)
}

// ParseExecutionID reads the task revision and task content digest an
// execution id names, so a holder of only the id, the command and the
// digest (a remote worker) can verify them.
func ParseExecutionID(id string) (taskRevision int64, taskContentDigest string, err error) {
	rest, ok := strings.CutPrefix(id, "qltd:v1:")
	rev, contentDigest, found := strings.Cut(rest, ":")
	if ok && found {
		taskRevision, err = strconv.ParseInt(rev, 10, 64)
	}
	if !ok || !found || err != nil || taskRevision < 1 || contentDigest == "" || ExecutionID(taskRevision, contentDigest) != id {
		return 0, "", qlerror.New(qlerror.Invalid, "execution id %q is not of the form qltd:v1:<task revision>:<task content digest>", id)
	}
	return taskRevision, contentDigest, nil
}

// PlanExecution derives the plan of an enabled revision for an executor.
func PlanExecution(r Revision, ex Executor) (Execution, error) {
	if !r.Spec.Enabled {
		return Execution{}, qlerror.New(qlerror.FailedPrecondition, "task %s revision %d is disabled and has no execution plan", r.TaskID, r.Revision)
	}
	e := Execution{
		ID:                ExecutionID(r.Revision, r.ContentDigest),
		ProjectID:         r.ProjectID,
		TaskID:            r.TaskID,
		TaskRevision:      r.Revision,
		TaskContentDigest: r.ContentDigest,
		Executor:          ex,
		Command:           r.Spec.Command,
	}
	e.Digest = e.computeDigest()
	return e, nil
}

// computeDigest covers project, task, source fence, executor, command,
// environment, working directory and timeout.
func (e Execution) computeDigest() string {
	b := digest.New(ExecutionKind).
		String("id", e.ID).
		String("projectId", e.ProjectID).
		String("taskId", e.TaskID).
		Int("taskRevision", e.TaskRevision).
		String("taskContentDigest", e.TaskContentDigest).
		String("executor", string(e.Executor))
	writeCommand(b, e.Command)
	return b.Sum()
}

// Verify checks identity and digest against the pinned source fence.
func (e Execution) Verify(taskRevision int64, taskContentDigest string, ex Executor) error {
	if e.ID != ExecutionID(taskRevision, taskContentDigest) || e.TaskRevision != taskRevision || e.TaskContentDigest != taskContentDigest {
		return qlerror.New(qlerror.Internal, "execution revision %s does not belong to task revision %d (%s)", e.ID, taskRevision, taskContentDigest)
	}
	if e.Executor != ex {
		return qlerror.New(qlerror.Internal, "execution revision %s is for executor %s, expected %s", e.ID, e.Executor, ex)
	}
	if got := e.computeDigest(); got != e.Digest {
		return qlerror.New(qlerror.Internal, "execution revision %s: digest mismatch (stored %s, computed %s)", e.ID, e.Digest, got)
	}
	return nil
}
