package task

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

const (
	projectID = "0193a8a0-0000-7000-8000-000000000001"
	taskID    = "0193a8a0-0000-7000-8000-000000000002"
)

func shellSpec() Spec {
	return Spec{
		Name:    "backup",
		Enabled: true,
		Labels:  map[string]string{"team": "ops"},
		Command: Command{
			Mode: ModeShell, Shell: "/bin/sh", Script: "echo hi",
			Env:        []EnvVar{{Name: "Z", Value: "1"}, {Name: "A", SecretRef: "db-password"}},
			WorkingDir: "/tmp", TimeoutMs: 30_000,
		},
	}
}

func TestContentDigestGoldenVector(t *testing.T) {
	t.Parallel()
	// A change here means every stored revision would stop verifying:
	// only change it together with a new SpecKind version.
	const want = "sha256:3aec053ffb3fe33a0644af6005d9116c85a1ec8cbf25d0062833010c9d7e9acb"
	if got := ContentDigest(projectID, taskID, shellSpec()); got != want {
		t.Fatalf("task content digest drifted: %s", got)
	}
}

func TestExecutionDigestGoldenVector(t *testing.T) {
	t.Parallel()
	rev, err := NewRevision(projectID, taskID, 0, "m1", shellSpec())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanExecution(rev, RemoteWorker)
	if err != nil {
		t.Fatal(err)
	}
	const want = "sha256:63a86670a23f5524dbb58a6545e091f4fff0f4e64a50f77044cf20009933e514"
	if plan.Digest != want {
		t.Fatalf("execution digest drifted: %s", plan.Digest)
	}
	if plan.ID != "qltd:v1:1:"+rev.ContentDigest {
		t.Fatalf("execution id %s", plan.ID)
	}
}

func TestContentDigestIgnoresEnvOrderButNotContent(t *testing.T) {
	t.Parallel()
	a := shellSpec()
	b := shellSpec()
	b.Command.Env = []EnvVar{b.Command.Env[1], b.Command.Env[0]}
	if ContentDigest(projectID, taskID, a) != ContentDigest(projectID, taskID, b) {
		t.Fatal("env order changed the digest")
	}
	for name, mutate := range map[string]func(*Spec){
		"script":  func(s *Spec) { s.Command.Script = "echo bye" },
		"timeout": func(s *Spec) { s.Command.TimeoutMs++ },
		"enabled": func(s *Spec) { s.Enabled = false },
		"label":   func(s *Spec) { s.Labels = map[string]string{"team": "dev"} },
		"secret":  func(s *Spec) { s.Command.Env[1].SecretRef = "other" },
		"workdir": func(s *Spec) { s.Command.WorkingDir = "/var" },
		"runAs":   func(s *Spec) { s.Command.RunAs = RunAs{User: "svc"} },
		"group":   func(s *Spec) { s.Command.RunAs = RunAs{User: "root", Group: "svc"} },
		"grace":   func(s *Spec) { s.Command.KillGraceMs = 5000 },
		"retry":   func(s *Spec) { s.Command.Retry = RetryPolicy{MaxAttempts: 2, On: []string{RetryOnLost}} },
		"placement": func(s *Spec) {
			s.Command.Placement = Placement{Labels: map[string]string{"region": "eu"}}
		},
	} {
		c := shellSpec()
		mutate(&c)
		if ContentDigest(projectID, taskID, c) == ContentDigest(projectID, taskID, a) {
			t.Errorf("changing %s did not change the digest", name)
		}
	}
}

// A revision without retry and placement keeps the digest it had before
// the fields existed (the golden vectors above); one with them has its own
// golden vectors, so their encoding cannot drift either.
func TestRetryAndPlacementDigestGoldenVectors(t *testing.T) {
	t.Parallel()
	s := shellSpec()
	s.Command.Retry = RetryPolicy{MaxAttempts: 3, BackoffMs: 10_000, On: []string{RetryOnTimedOut, RetryOnLost}}
	s.Command.Placement = Placement{Labels: map[string]string{"region": "eu", "gpu": "true"}}
	rev, err := NewRevision(projectID, taskID, 0, "m1", s)
	if err != nil {
		t.Fatal(err)
	}
	const wantContent = "sha256:9c1526d5278175a0a3bffaff4236be67adc35768ab8249378b4aa2b17454c2bc"
	const wantExec = "sha256:99da917381449bcfc13b84a0ee68588aad2134f96fc6cf530e1f2fbd0912baab"
	plan, err := PlanExecution(rev, RemoteWorker)
	if err != nil {
		t.Fatal(err)
	}
	if rev.ContentDigest != wantContent || plan.Digest != wantExec {
		t.Fatalf("digests drifted: content %s, execution %s", rev.ContentDigest, plan.Digest)
	}
	empty := shellSpec()
	empty.Command.Placement = Placement{Labels: map[string]string{}}
	if ContentDigest(projectID, taskID, empty) != ContentDigest(projectID, taskID, shellSpec()) {
		t.Fatal("an empty placement changed the digest of a revision that has none")
	}
}

func TestRetryOutcomeOrderDoesNotChangeTheDigest(t *testing.T) {
	t.Parallel()
	a, b := shellSpec(), shellSpec()
	a.Command.Retry = RetryPolicy{MaxAttempts: 2, On: []string{RetryOnLost, RetryOnFailed}}
	b.Command.Retry = RetryPolicy{MaxAttempts: 2, On: []string{RetryOnFailed, RetryOnLost}}
	if ContentDigest(projectID, taskID, a) != ContentDigest(projectID, taskID, b) {
		t.Fatal("the same outcomes in another order digest differently")
	}
	if a.Command.Retry.On[0] != RetryOnLost {
		t.Fatal("normalising for the digest reordered the caller's slice")
	}
}

func TestTamperedRevisionFailsVerification(t *testing.T) {
	t.Parallel()
	rev, _ := NewRevision(projectID, taskID, 0, "m1", shellSpec())
	if err := rev.VerifyDigest(); err != nil {
		t.Fatal(err)
	}
	rev.Spec.Command.Script = "rm -rf /"
	if err := rev.VerifyDigest(); !qlerror.Is(err, qlerror.Internal) {
		t.Fatalf("tampered revision verified: %v", err)
	}
	plan, _ := PlanExecution(rev, RemoteWorker)
	plan.Command.TimeoutMs = 1
	if err := plan.Verify(rev.Revision, rev.ContentDigest, RemoteWorker); err == nil {
		t.Fatal("tampered execution plan verified")
	}
}

func TestExecutionPlanVerifiesItsSourceFenceAndExecutor(t *testing.T) {
	t.Parallel()
	rev, _ := NewRevision(projectID, taskID, 0, "m1", shellSpec())
	plan, _ := PlanExecution(rev, LocalProcess)
	if err := plan.Verify(rev.Revision, rev.ContentDigest, LocalProcess); err != nil {
		t.Fatal(err)
	}
	if err := plan.Verify(rev.Revision+1, rev.ContentDigest, LocalProcess); err == nil {
		t.Fatal("plan verified against another revision")
	}
	if err := plan.Verify(rev.Revision, rev.ContentDigest, RemoteWorker); err == nil {
		t.Fatal("plan verified for another executor")
	}
}

func TestDisabledRevisionHasNoExecutionPlan(t *testing.T) {
	t.Parallel()
	s := shellSpec()
	s.Enabled = false
	rev, _ := NewRevision(projectID, taskID, 0, "m1", s)
	if _, err := PlanExecution(rev, RemoteWorker); !qlerror.Is(err, qlerror.FailedPrecondition) {
		t.Fatalf("got %v", err)
	}
}

func TestValidationNamesFieldAndLimit(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxArgs+1)
	manyEnv := make([]EnvVar, MaxEnv+1)
	for i := range manyEnv {
		manyEnv[i] = EnvVar{Name: "V" + strings.Repeat("X", i%5) + string(rune('A'+i%26)) + strings.Repeat("Y", i/26)}
	}
	cases := map[string]struct {
		mutate func(*Spec)
		want   string
	}{
		"relative path": {func(s *Spec) { *s = Spec{Name: "a", Command: Command{Mode: ModeArgv, Path: "bin/x", TimeoutMs: 1}} }, "task.command.path: \"bin/x\" must be an absolute, clean path (like /usr/bin/env)"},
		"too many args": {func(s *Spec) {
			*s = Spec{Name: "a", Command: Command{Mode: ModeArgv, Path: "/bin/x", Args: many, TimeoutMs: 1}}
		}, "limit is 256"},
		"bad shell":        {func(s *Spec) { s.Command.Shell = "/bin/zsh" }, "task.command.shell"},
		"empty script":     {func(s *Spec) { s.Command.Script = "  " }, "task.command.script"},
		"zero timeout":     {func(s *Spec) { s.Command.TimeoutMs = -1 }, "task.command.timeout: -1ms is out of range: it takes 1ms to 365d"},
		"year+ timeout":    {func(s *Spec) { s.Command.TimeoutMs = MaxTimeout.Milliseconds() + 1 }, "is out of range: it takes 1ms to 365d"},
		"env name":         {func(s *Spec) { s.Command.Env = []EnvVar{{Name: "1BAD", Value: "x"}} }, "task.command.env"},
		"env both":         {func(s *Spec) { s.Command.Env = []EnvVar{{Name: "A", Value: "x", SecretRef: "y"}} }, "not both"},
		"env duplicate":    {func(s *Spec) { s.Command.Env = []EnvVar{{Name: "A"}, {Name: "A"}} }, "defined twice"},
		"run id override":  {func(s *Spec) { s.Command.Env = []EnvVar{{Name: "QL_RUN_ID", Value: "forged"}} }, "reserved"},
		"reserved secret":  {func(s *Spec) { s.Command.Env = []EnvVar{{Name: "QL_ATTEMPT_ID", SecretRef: "x"}} }, "reserved"},
		"reserved prefix":  {func(s *Spec) { s.Command.Env = []EnvVar{{Name: "QL_ANYTHING", Value: "x"}} }, "reserved"},
		"too many env":     {func(s *Spec) { s.Command.Env = manyEnv }, "limit is 256"},
		"relative wd":      {func(s *Spec) { s.Command.WorkingDir = "tmp" }, `task.command.workingDir: "tmp" must be an absolute, clean path (like /srv/jobs)`},
		"bad mode":         {func(s *Spec) { s.Command.Mode = "docker" }, "task.command.mode"},
		"bad name":         {func(s *Spec) { s.Name = "Bad Name" }, "task.name"},
		"argv and script":  {func(s *Spec) { s.Command.Path = "/bin/x" }, "shell mode takes shell and script"},
		"runAs no user":    {func(s *Spec) { s.Command.RunAs = RunAs{Group: "svc"} }, "task.command.runAs.user: is required"},
		"runAs bad user":   {func(s *Spec) { s.Command.RunAs = RunAs{User: "a b"} }, "task.command.runAs.user"},
		"runAs bad group":  {func(s *Spec) { s.Command.RunAs = RunAs{User: "svc", Group: "x:y"} }, "task.command.runAs.group"},
		"grace too long":   {func(s *Spec) { s.Command.KillGraceMs = MaxKillGrace.Milliseconds() + 1 }, "task.command.killGrace"},
		"grace negative":   {func(s *Spec) { s.Command.KillGraceMs = -1 }, "task.command.killGrace"},
		"script not UTF-8": {func(s *Spec) { s.Command.Script = "echo \xff" }, "task.command.script: is not valid UTF-8"},
		"arg not UTF-8": {func(s *Spec) {
			*s = Spec{Name: "a", Command: Command{Mode: ModeArgv, Path: "/bin/x", Args: []string{"ok", "\xc3"}, TimeoutMs: 1}}
		}, "task.command.args[1]: is not valid UTF-8"},
		"env not UTF-8":       {func(s *Spec) { s.Command.Env = []EnvVar{{Name: "A", Value: "\xff"}} }, "task.command.env.A: is not valid UTF-8"},
		"label not UTF-8":     {func(s *Spec) { s.Labels = map[string]string{"team": "\xff"} }, "task.labels.team: value is not valid UTF-8"},
		"retry zero attempts": {func(s *Spec) { s.Command.Retry = RetryPolicy{On: []string{RetryOnLost}} }, "task.command.retry.maxAttempts: 0 is outside 1 … 100"},
		"retry too many": {func(s *Spec) {
			s.Command.Retry = RetryPolicy{MaxAttempts: MaxRetryAttempts + 1, On: []string{RetryOnLost}}
		}, "outside 1 … 100"},
		"retry backoff": {func(s *Spec) {
			s.Command.Retry = RetryPolicy{MaxAttempts: 2, BackoffMs: MaxRetryBackoffMs + 1, On: []string{RetryOnLost}}
		}, "task.command.retry.backoff"},
		"retry negative backoff": {func(s *Spec) { s.Command.Retry = RetryPolicy{MaxAttempts: 2, BackoffMs: -1, On: []string{RetryOnLost}} }, "task.command.retry.backoff"},
		"retry no outcome":       {func(s *Spec) { s.Command.Retry = RetryPolicy{MaxAttempts: 2} }, "task.command.retry.on: names no outcome"},
		"retry bad outcome":      {func(s *Spec) { s.Command.Retry = RetryPolicy{MaxAttempts: 2, On: []string{"succeeded"}} }, `"succeeded" is not one of failed, lost, timed_out`},
		"retry twice": {func(s *Spec) {
			s.Command.Retry = RetryPolicy{MaxAttempts: 2, On: []string{RetryOnLost, RetryOnLost}}
		}, `"lost" is named twice`},
		"placement key":   {func(s *Spec) { s.Command.Placement = Placement{Labels: map[string]string{"Region": "eu"}} }, "task.command.placement.labels: key \"Region\""},
		"placement value": {func(s *Spec) { s.Command.Placement = Placement{Labels: map[string]string{"region": "eu,us"}} }, "task.command.placement.labels.region"},
	}
	for name, c := range cases {
		s := shellSpec()
		c.mutate(&s)
		err := s.Normalize().Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestNewRevisionRejectsBadIdentity(t *testing.T) {
	t.Parallel()
	if _, err := NewRevision("not-a-uuid", taskID, 0, "m", shellSpec()); err == nil {
		t.Fatal("bad project id accepted")
	}
	if _, err := NewRevision(projectID, taskID, -1, "m", shellSpec()); err == nil {
		t.Fatal("negative expected revision accepted")
	}
	if _, err := NewRevision(projectID, taskID, 0, "", shellSpec()); err == nil {
		t.Fatal("empty mutation id accepted")
	}
	rev, err := NewRevision(projectID, taskID, 4, "m", shellSpec())
	if err != nil || rev.Revision != 5 {
		t.Fatalf("revision %d err %v, want 5", rev.Revision, err)
	}
}

func TestAnExecutionIDParsesBackToTheSourceFenceItNames(t *testing.T) {
	t.Parallel()
	rev, _ := NewRevision(projectID, taskID, 6, "m1", shellSpec())
	plan, _ := PlanExecution(rev, RemoteWorker)
	gotRev, gotDigest, err := ParseExecutionID(plan.ID)
	if err != nil || gotRev != rev.Revision || gotDigest != rev.ContentDigest {
		t.Fatalf("ParseExecutionID(%q) = %d, %q, %v; want %d, %q", plan.ID, gotRev, gotDigest, err, rev.Revision, rev.ContentDigest)
	}
	for _, bad := range []string{"", "qltd:v1:", "qltd:v1:7", "qltd:v1:x:sha256:ab", "qltd:v1:0:sha256:ab", "qltd:v1:07:sha256:ab", "qltd:v2:7:sha256:ab", "qltd:v1:7:"} {
		if _, _, err := ParseExecutionID(bad); !qlerror.Is(err, qlerror.Invalid) {
			t.Errorf("ParseExecutionID(%q): %v, want invalid", bad, err)
		}
	}
}
