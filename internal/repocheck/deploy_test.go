package repocheck

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The Kubernetes manifests are checked here rather than by a schema
// validator: validators fetch their schemas from the network at run time,
// which CI cannot reach. This test holds the structural facts the
// deployment depends on.

// k8sDoc is the part of a manifest the checks read.
type k8sDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		// Service selectors are a plain map.
		ServiceSelector map[string]string `yaml:"-"`
		Template        struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
		Ports []struct {
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
		MinAvailable   *int `yaml:"minAvailable"`
		MaxUnavailable *int `yaml:"maxUnavailable"`
		Replicas       *int `yaml:"replicas"`
		Strategy       struct {
			Type string `yaml:"type"`
		} `yaml:"strategy"`
	} `yaml:"spec"`
	file string
}

type podSpec struct {
	SecurityContext struct {
		RunAsNonRoot *bool `yaml:"runAsNonRoot"`
		RunAsUser    *int  `yaml:"runAsUser"`
	} `yaml:"securityContext"`
	AutomountServiceAccountToken  *bool       `yaml:"automountServiceAccountToken"`
	TerminationGracePeriodSeconds *int        `yaml:"terminationGracePeriodSeconds"`
	InitContainers                []container `yaml:"initContainers"`
	Containers                    []container `yaml:"containers"`
	Volumes                       []struct {
		Name   string `yaml:"name"`
		Secret *struct {
			SecretName string `yaml:"secretName"`
			Items      []struct {
				Key string `yaml:"key"`
			} `yaml:"items"`
		} `yaml:"secret"`
	} `yaml:"volumes"`
}

type container struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
	EnvFrom []struct {
		SecretRef *struct {
			Name string `yaml:"name"`
		} `yaml:"secretRef"`
	} `yaml:"envFrom"`
	Ports []struct {
		Name string `yaml:"name"`
	} `yaml:"ports"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	Lifecycle      struct {
		PreStop *struct {
			Exec struct {
				Command []string `yaml:"command"`
			} `yaml:"exec"`
		} `yaml:"preStop"`
	} `yaml:"lifecycle"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// env is the value of a container's variable, and whether it is set.
// mountedAt is the name of the volume c mounts at path, "" when none.
func (c container) mountedAt(path string) string {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return m.Name
		}
	}
	return ""
}

func (c container) env(name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// manifests parses every document of every file kustomization.yaml lists,
// checking that the list and the directory agree.
func manifests(t *testing.T) []k8sDoc {
	t.Helper()
	dir := filepath.Join(repoRoot, "deploy", "kubernetes")
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kust struct {
		Resources []string `yaml:"resources"`
	}
	if err := yaml.Unmarshal(raw, &kust); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if base := filepath.Base(f); base != "kustomization.yaml" && !slices.Contains(kust.Resources, base) {
			t.Errorf("deploy/kubernetes/%s is not listed in kustomization.yaml's resources", base)
		}
	}
	var docs []k8sDoc
	for _, name := range kust.Resources {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("kustomization.yaml lists %s: %v", name, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		for {
			var node yaml.Node
			if err := dec.Decode(&node); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var d k8sDoc
			if err := node.Decode(&d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if d.Kind == "Service" {
				var svc struct {
					Spec struct {
						Selector map[string]string `yaml:"selector"`
					} `yaml:"spec"`
				}
				if err := node.Decode(&svc); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				d.Spec.ServiceSelector = svc.Spec.Selector
			}
			if d.APIVersion == "" || d.Kind == "" || d.Metadata.Name == "" {
				t.Errorf("%s: a document without apiVersion, kind or metadata.name", name)
			}
			d.file = name
			docs = append(docs, d)
		}
	}
	return docs
}

func find(docs []k8sDoc, kind, name string) *k8sDoc {
	for i := range docs {
		if docs[i].Kind == kind && docs[i].Metadata.Name == name {
			return &docs[i]
		}
	}
	return nil
}

// selects reports whether selector matches labels.
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// The Kubernetes manifests deploy the cluster profile as designed: replicas
// probed on /readyz and /livez, the migration Job as the migration role
// (and nothing else as it), workers reaching the replicas' worker Service,
// every pod non-root and locked down with resources, one image tag
// everywhere, every Secret and label selector resolving, every QL_
// variable a documented setting, a disruption budget per Deployment, and
// retention run by the replicas as the maintenance role.
func TestTheKubernetesManifestsHoldTheDeploymentsStructure(t *testing.T) {
	t.Parallel()
	docs := manifests(t)
	ops, err := os.ReadFile(filepath.Join(repoRoot, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	images := map[string]bool{}
	secretKeys := map[string]map[string]string{}
	for _, d := range docs {
		if d.Kind == "Secret" {
			secretKeys[d.Metadata.Name] = d.StringData
		}
	}
	var pods []*k8sDoc
	for i := range docs {
		if d := &docs[i]; d.Kind == "Deployment" || d.Kind == "Job" {
			pods = append(pods, d)
		}
	}
	if len(pods) != 3 {
		t.Fatalf("%d Deployments and Jobs; want the replicas, the workers and the migration Job", len(pods))
	}
	for _, d := range pods {
		spec := d.Spec.Template.Spec
		where := d.file + " " + d.Kind + " " + d.Metadata.Name
		if sc := spec.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
			t.Errorf("%s: the pod must set runAsNonRoot: true and a non-zero runAsUser", where)
		}
		if a := spec.AutomountServiceAccountToken; a == nil || *a {
			t.Errorf("%s: QingLong never calls the Kubernetes API; set automountServiceAccountToken: false", where)
		}
		if d.Kind == "Deployment" && !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels) {
			t.Errorf("%s: its selector does not select its own pods", where)
		}
		for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
			cw := where + " container " + c.Name
			images[c.Image] = true
			if c.Resources.Requests["cpu"] == "" || c.Resources.Requests["memory"] == "" || c.Resources.Limits["memory"] == "" {
				t.Errorf("%s: needs cpu and memory requests and a memory limit", cw)
			}
			sc := c.SecurityContext
			if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
				t.Errorf("%s: needs allowPrivilegeEscalation: false, readOnlyRootFilesystem: true and capabilities.drop [ALL]", cw)
			}
			for _, e := range c.Env {
				if strings.HasPrefix(e.Name, "QL_") && !bytes.Contains(ops, []byte("`"+e.Name+"`")) {
					t.Errorf("%s: %s is not a setting docs/operations.md documents", cw, e.Name)
				}
			}
			for _, ef := range c.EnvFrom {
				if ef.SecretRef == nil || secretKeys[ef.SecretRef.Name] == nil {
					t.Errorf("%s: envFrom names a Secret secrets.yaml does not define", cw)
				}
			}
		}
		for _, v := range spec.Volumes {
			if v.Secret == nil {
				continue
			}
			keys, ok := secretKeys[v.Secret.SecretName]
			if !ok {
				t.Errorf("%s: volume %s names Secret %s, which secrets.yaml does not define", where, v.Name, v.Secret.SecretName)
			}
			for _, it := range v.Secret.Items {
				if _, ok := keys[it.Key]; !ok {
					t.Errorf("%s: volume %s takes key %s, which Secret %s lacks", where, v.Name, it.Key, v.Secret.SecretName)
				}
			}
		}
	}
	if len(images) != 1 {
		t.Errorf("the manifests name %d images %v; every container must run the same image and tag", len(images), images)
	}
	for img := range images {
		if _, tag, ok := strings.Cut(img, ":"); !ok || tag == "" || tag == "latest" {
			t.Errorf("image %q must name a fixed tag", img)
		}
	}

	replicas := find(docs, "Deployment", "qinglong-replica")
	if replicas == nil {
		t.Fatal("no Deployment qinglong-replica")
	}
	r := replicas.Spec.Template.Spec.Containers[0]
	if !slices.Equal(r.Args, []string{"serve", "--profile", "cluster"}) {
		t.Errorf("the replicas run %v, want serve --profile cluster", r.Args)
	}
	var ports []string
	for _, p := range r.Ports {
		ports = append(ports, p.Name)
	}
	for what, p := range map[string]*probe{"/readyz": r.ReadinessProbe, "/livez": r.LivenessProbe} {
		if p == nil || p.HTTPGet.Path != what || !slices.Contains(ports, p.HTTPGet.Port) {
			t.Errorf("the replicas' probe of %s: %+v; want an httpGet of %s on a declared port", what, p, what)
		}
	}
	if r.ReadinessProbe != nil && r.ReadinessProbe.HTTPGet.Path == r.LivenessProbe.HTTPGet.Path {
		t.Error("readiness and liveness probe the same path: a lost database must make a replica unready, never restart it")
	}
	checkReplicaStop(t, replicas.Spec.Template.Spec.TerminationGracePeriodSeconds, r)
	if v, _ := r.env("QL_METRICS_ADDR"); v == "" {
		t.Error("the replicas do not serve metrics (QL_METRICS_ADDR)")
	}
	retains := false
	for _, ef := range r.EnvFrom {
		if ef.SecretRef != nil {
			_, ok := secretKeys[ef.SecretRef.Name]["QL_DATABASE_MAINTENANCE_URL"]
			retains = retains || ok
		}
	}
	if !retains {
		t.Error("the replicas are not given the maintenance role's URL (QL_DATABASE_MAINTENANCE_URL): no retention runs, and the database grows for ever")
	}

	job := find(docs, "Job", "qinglong-migrate")
	if job == nil {
		t.Fatal("no Job qinglong-migrate")
	}
	migrationSecrets := map[string]bool{}
	for name, keys := range secretKeys {
		if _, ok := keys["QL_DATABASE_MIGRATION_URL"]; ok {
			migrationSecrets[name] = true
		}
	}
	jc := job.Spec.Template.Spec.Containers[0]
	if !slices.Equal(jc.Args, []string{"db", "migrate"}) || len(jc.EnvFrom) != 1 || jc.EnvFrom[0].SecretRef == nil || !migrationSecrets[jc.EnvFrom[0].SecretRef.Name] {
		t.Errorf("the migration Job must run `db migrate` with the Secret holding QL_DATABASE_MIGRATION_URL, and only it")
	}
	for _, d := range pods {
		if d == job {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, ef := range c.EnvFrom {
				if ef.SecretRef != nil && migrationSecrets[ef.SecretRef.Name] {
					t.Errorf("%s %s: only the migration Job may hold the migration role's credentials", d.Kind, d.Metadata.Name)
				}
			}
		}
	}

	workers := find(docs, "Deployment", "qinglong-worker")
	if workers == nil {
		t.Fatal("no Deployment qinglong-worker")
	}
	w := workers.Spec.Template.Spec.Containers[0]
	server, _ := w.env("QL_SERVER")
	if !slices.Equal(w.Command, []string{"ql-worker"}) || !strings.HasPrefix(server, "https://qinglong-workers.") {
		t.Errorf("the workers run %v against %q; want ql-worker against https://qinglong-workers.…", w.Command, server)
	}
	// A second process of one worker credential replaces the first, which
	// exits 4: the workers' Deployment runs one pod of its credential, and
	// an update stops the old pod before it starts the new one.
	if pods := workers.Spec.Replicas; pods == nil || *pods != 1 || workers.Spec.Strategy.Type != "Recreate" {
		n := "the default number of"
		if pods != nil {
			n = strconv.Itoa(*pods)
		}
		t.Errorf("the workers' Deployment runs %s pods of its one credential with strategy %q; want 1, Recreate", n, workers.Spec.Strategy.Type)
	}
	svc := find(docs, "Service", "qinglong-workers")
	if svc == nil || !selects(svc.Spec.ServiceSelector, replicas.Spec.Template.Metadata.Labels) {
		t.Error("Service qinglong-workers does not select the replicas")
	}

	budgets := 0
	for _, d := range docs {
		if d.Kind != "PodDisruptionBudget" {
			continue
		}
		if (d.Spec.MinAvailable == nil) == (d.Spec.MaxUnavailable == nil) {
			t.Errorf("PodDisruptionBudget %s: set exactly one of minAvailable and maxUnavailable", d.Metadata.Name)
		}
		for _, dep := range []*k8sDoc{replicas, workers} {
			if selects(d.Spec.Selector.MatchLabels, dep.Spec.Template.Metadata.Labels) {
				budgets++
			}
		}
	}
	if budgets != 2 {
		t.Errorf("%d disruption budgets select a Deployment; want one each for the replicas and the workers", budgets)
	}
}

// checkReplicaStop checks the replica's preStop sleep and its grace
// period: a replica closes its listeners within milliseconds of SIGTERM,
// so without the sleep the Services route new connections to a closed port
// until they drop the pod; and Kubernetes kills the pod at the end of the
// period, which must outlast the sleep and then the replica's drain (its
// default --stop-timeout, the manifest setting none).
func checkReplicaStop(t *testing.T, grace *int, r container) {
	t.Helper()
	if _, set := r.env("QL_STOP_TIMEOUT"); set {
		t.Error("the replicas set QL_STOP_TIMEOUT; this check assumes the default: compare the grace period with the value set")
	}
	src, err := os.ReadFile(filepath.Join(repoRoot, "internal", "cluster", "scheduler", "config.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`DefaultStopTimeout = (\d+) \* time\.Second`).FindSubmatch(src)
	if m == nil {
		t.Fatal("internal/cluster/scheduler/config.go: no DefaultStopTimeout = N * time.Second")
	}
	stop, _ := strconv.Atoi(string(m[1]))
	sleep := 0
	if p := r.Lifecycle.PreStop; p != nil && len(p.Exec.Command) == 2 && p.Exec.Command[0] == "sleep" {
		sleep, _ = strconv.Atoi(p.Exec.Command[1])
	}
	if sleep < 2 {
		t.Errorf("the replicas' preStop is %+v; want exec [sleep N], N ≥ 2 seconds, so the Services drop a stopping pod before it closes its listeners", r.Lifecycle.PreStop)
	}
	if grace == nil {
		t.Error("the replicas set no terminationGracePeriodSeconds; set one above the preStop sleep plus the default --stop-timeout")
	} else if *grace <= sleep+stop {
		t.Errorf("the replicas' terminationGracePeriodSeconds %d must exceed the preStop sleep (%d s) plus the default --stop-timeout (%d s)", *grace, sleep, stop)
	}
}

// The Dockerfile builds static binaries by cross-compiling on the build
// platform, and its final stage runs no command (so no target needs
// emulation) and runs as a non-root user.
func TestTheDockerfileCrossCompilesStaticBinariesForANonRootImage(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var stages [][]string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "FROM ") {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], line)
		}
	}
	if len(stages) < 2 {
		t.Fatalf("the Dockerfile has %d stages; want a build stage and a runtime stage", len(stages))
	}
	build := strings.Join(stages[0], "\n")
	for _, want := range []string{"--platform=$BUILDPLATFORM", "CGO_ENABLED=0", "TARGETARCH", "TARGETVARIANT", "GOARM", "build.sh -o /out/bin ql ql-edge ql-worker"} {
		if !strings.Contains(build, want) {
			t.Errorf("the build stage lacks %q", want)
		}
	}
	final := stages[len(stages)-1]
	user := ""
	for _, line := range final {
		switch {
		case strings.HasPrefix(line, "RUN "):
			t.Errorf("the final stage runs %q: a command there needs the target architecture (emulation)", line)
		case strings.HasPrefix(line, "USER "):
			user = strings.TrimPrefix(line, "USER ")
		case strings.HasPrefix(line, "ENV ") && strings.Contains(line, "QL_DATA_DIR"):
			t.Error("the image sets QL_DATA_DIR, which the cluster profile refuses")
		}
	}
	if user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
		t.Errorf("the final stage's USER is %q; it must be a non-root user", user)
	}
}

// unitKeys are the settings of a systemd unit's [Service] section.
func unitKeys(t *testing.T, path string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	section := ""
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, _ := strings.Cut(line, "=")
			keys[k] = append(keys[k], v)
		}
	}
	return keys
}

// The systemd units run the standalone server, a cluster replica and the
// worker as an unprivileged, sandboxed user with a state directory of their own; where
// systemd-analyze is installed, it accepts them.
func TestTheSystemdUnitsAreHardened(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(repoRoot, "deploy", "systemd")
	want := map[string]string{
		"DynamicUser": "yes", "ProtectSystem": "strict", "NoNewPrivileges": "yes", "ProtectHome": "yes", "PrivateTmp": "yes",
		"PrivateDevices": "yes", "CapabilityBoundingSet": "", "RestrictSUIDSGID": "yes", "UMask": "0077", "KillMode": "mixed",
	}
	execs := map[string]*regexp.Regexp{
		"qinglong.service":         regexp.MustCompile(`^/usr/local/bin/ql serve\b`),
		"qinglong-replica.service": regexp.MustCompile(`^/usr/local/bin/ql serve --profile cluster\b`),
		"qinglong-worker.service":  regexp.MustCompile(`^/usr/local/bin/ql-worker\b`),
	}
	for unit, exec := range execs {
		keys := unitKeys(t, filepath.Join(dir, unit))
		for k, v := range want {
			if got := keys[k]; !slices.Equal(got, []string{v}) {
				t.Errorf("%s: %s=%v, want %s=%s", unit, k, got, k, v)
			}
		}
		if len(keys["StateDirectory"]) != 1 || keys["StateDirectory"][0] == "" {
			t.Errorf("%s: no StateDirectory", unit)
		}
		if len(keys["ExecStart"]) != 1 || !exec.MatchString(keys["ExecStart"][0]) {
			t.Errorf("%s: ExecStart=%v", unit, keys["ExecStart"])
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze is not installed; the units were checked by their keys only")
		return
	}
	// verify wants every ExecStart binary to exist: point them at stand-ins.
	tmp := t.TempDir()
	var paths []string
	for unit := range execs {
		raw, err := os.ReadFile(filepath.Join(dir, unit))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(tmp, unit)
		if err := os.WriteFile(path, bytes.ReplaceAll(raw, []byte("/usr/local/bin/"), []byte(tmp+"/")), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	for _, bin := range []string{"ql", "ql-worker"} {
		if err := os.WriteFile(filepath.Join(tmp, bin), []byte("#!/bin/sh\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(analyze, append([]string{"verify"}, paths...)...)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// No unit restarts the exits that starting it again as it is cannot
// change — refused input, a conflict (drained, replaced, another worker's
// data directory, another server's data directory, a database of a newer
// build), a refusal — so a drained worker or a server refused its data
// directory does not start and exit every few seconds, and two processes
// given one credential do not replace each other in turn.
func TestTheUnitsDoNotRestartExitsThatCannotPass(t *testing.T) {
	t.Parallel()
	// cli.ExitUsage, cli.ExitConflict and cli.ExitDenied (docs/operations.md,
	// Exit codes), written out: importing cli would link a server into
	// this package's tests.
	const want = "2 4 5"
	for _, unit := range []string{"qinglong.service", "qinglong-worker.service"} {
		keys := unitKeys(t, filepath.Join(repoRoot, "deploy", "systemd", unit))
		if got := keys["RestartPreventExitStatus"]; !slices.Equal(got, []string{want}) {
			t.Errorf("%s: RestartPreventExitStatus=%v, want %s", unit, got, want)
		}
	}
}

// The replica's unit restarts a replica that exited 4 (the schema is of a
// newer build than its binary: `ql db migrate` of an upgrade ran under
// it), so the upgrade the docs give — install the new binary, migrate —
// ends with every replica on the new binary without a hand on each host,
// and never gives up while an older binary exits 4 at each start; it
// still does not restart 2 and 5, which starting again cannot change.
func TestTheReplicaUnitRestartsAReplicaTheSchemaMovedAheadOf(t *testing.T) {
	t.Parallel()
	path := filepath.Join(repoRoot, "deploy", "systemd", "qinglong-replica.service")
	keys := unitKeys(t, path)
	if got := keys["RestartPreventExitStatus"]; !slices.Equal(got, []string{"2 5"}) {
		t.Errorf("RestartPreventExitStatus=%v, want 2 5: 4 restarted, 2 and 5 not", got)
	}
	if got := keys["Restart"]; !slices.Equal(got, []string{"on-failure"}) && !slices.Equal(got, []string{"always"}) {
		t.Errorf("Restart=%v restarts no failed exit", got)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^StartLimitIntervalSec=0$`).Match(raw) {
		t.Error("no StartLimitIntervalSec=0 in [Unit]: an older binary exiting 4 at each start would reach the start limit and stay stopped")
	}
	ops, err := os.ReadFile(filepath.Join(repoRoot, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(ops, []byte("deploy/systemd/qinglong-replica.service")) {
		t.Error("docs/operations.md does not name the replica's unit its upgrade steps rely on")
	}
}

// Tasks run inside their unit's sandbox, so neither unit denies memory
// that is writable and executable: Node.js, Java, .NET and PyPy compile
// code as they run and die at their start without it.
func TestTheUnitsLetTasksRunRuntimesThatCompileAsTheyRun(t *testing.T) {
	t.Parallel()
	for _, unit := range []string{"qinglong.service", "qinglong-worker.service"} {
		keys := unitKeys(t, filepath.Join(repoRoot, "deploy", "systemd", unit))
		if got := keys["MemoryDenyWriteExecute"]; len(got) != 0 && !slices.Equal(got, []string{"no"}) {
			t.Errorf("%s: MemoryDenyWriteExecute=%v kills every task that runs Node.js or Java", unit, got)
		}
	}
}

// The OpenWrt service runs the edge server under procd on a data
// directory of its own, its console on loopback unless told otherwise
// (plain HTTP to the LAN only when asked for), and gives it longer to
// stop than its drain: procd's default term timeout equals the edge's
// --stop-timeout and would kill it at that very moment.
func TestTheOpenWrtServiceRunsTheEdgeServerOnLoopbackAndWaitsOutItsDrain(t *testing.T) {
	t.Parallel()
	path := filepath.Join(repoRoot, "deploy", "openwrt", "ql-edge.init")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("sh -n %s: %v\n%s", path, err, out)
	}
	text := string(raw)
	for _, want := range []string{"USE_PROCD=1\n", "PROG=/usr/bin/ql-edge\n", `procd_set_param command "$PROG" serve --data-dir "$DATA_DIR"`, "HTTP_ADDR=127.0.0.1:", "procd_set_param respawn "} {
		if !strings.Contains(text, want) {
			t.Errorf("%s does not hold %q", path, want)
		}
	}
	if m := regexp.MustCompile(`(?m)^\s*\[ -n "\$INSECURE_HTTP" \] && procd_append_param command --insecure-http$`).FindString(text); m == "" ||
		strings.Count(text, "--insecure-http") != 1 {
		t.Errorf("%s: --insecure-http must be given only when INSECURE_HTTP is set", path)
	}
	// The edge profile's --stop-timeout default (docs/operations.md),
	// written out: importing cli would link a server into these tests.
	const edgeStopSeconds = 5
	m := regexp.MustCompile(`procd_set_param term_timeout (\d+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s sets no term_timeout: procd's default, %d s, kills the server as its drain ends", path, edgeStopSeconds)
	}
	if n, _ := strconv.Atoi(m[1]); n <= edgeStopSeconds {
		t.Errorf("%s: term_timeout %d s; want more than the edge's --stop-timeout of %d s", path, n, edgeStopSeconds)
	}
}
