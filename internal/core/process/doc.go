// Package process runs one attempt's command as a local process, the same
// way wherever it runs (the single-node executor, a cluster worker): in its
// own process group, as its task's account or the default one, in its
// task's workingDir or else a fresh empty 0700 directory removed
// afterwards, with the base environment, the task's variables and the
// attempt's identity (QL_RUN_ID, QL_ATTEMPT_ID, QL_SCHEDULED_AT and the
// rest of run.Identity.Env) — the identity wins.
//
// A timeout, a stop (the caller's context) or the end of its main process
// ends the whole group and, on Linux, descendants that left it (found by
// ancestry, by QL_ATTEMPT_ID and by being re-parented to this process, a
// child subreaper): SIGTERM, then SIGKILL after the task's kill grace, or
// at once when the caller closes its hard channel. What the main process
// left running when it ended of itself is named in the log
// (LeftRunningLine). ReapAdopted collects, while its caller runs, the
// dead descendants this process adopted, never a child an exec.Cmd here
// waits for (the waited record).
//
// Secret values are resolved from a local owner-only file (Secrets), passed
// only in the child's environment and masked in its output (Redactor);
// nothing here puts a value into an error message. EndOrphan ends the
// process group a crashed owner left behind, only when it is provably the
// command's (pid reuse is checked by start time); EndMarked ends what
// still carries an attempt's QL_ATTEMPT_ID.
package process
