package repocheck

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Each Kubernetes Deployment that reads secrets (the workers for their
// tasks, the replicas for their notification channels) is given its
// secrets file the way it accepts one: QL_SECRETS_FILE names a file an
// init container installs with mode 0600 as the pod's own user (a Secret
// volume's files belong to root, which the server refuses), copied from a
// Secret of secrets.yaml that holds a JSON object, on a volume the init
// container and the server share.
func TestKubernetesDeploymentsGetTheirSecretsFileAsAFileOfTheirOwnUser(t *testing.T) {
	t.Parallel()
	docs := manifests(t)
	secretKeys := map[string]map[string]string{}
	for _, d := range docs {
		if d.Kind == "Secret" {
			secretKeys[d.Metadata.Name] = d.StringData
		}
	}
	for _, name := range []string{"qinglong-replica", "qinglong-worker"} {
		d := find(docs, "Deployment", name)
		if d == nil {
			t.Fatalf("no Deployment %s", name)
		}
		spec := d.Spec.Template.Spec
		server := spec.Containers[0]
		file, ok := server.env("QL_SECRETS_FILE")
		if !ok || !filepath.IsAbs(file) {
			t.Errorf("%s: QL_SECRETS_FILE is %q; want the absolute path of the file an init container installs", name, file)
			continue
		}
		install := regexp.MustCompile(`install -m 0600 (\S+) ` + regexp.QuoteMeta(file) + `(\s|$)`)
		var src string
		var init container
		for _, c := range spec.InitContainers {
			if m := install.FindStringSubmatch(strings.Join(c.Command, " ")); m != nil {
				src, init = m[1], c
			}
		}
		if src == "" {
			t.Errorf("%s: no init container runs `install -m 0600 SOURCE %s`", name, file)
			continue
		}
		shared := server.mountedAt(filepath.Dir(file))
		if shared == "" || init.mountedAt(filepath.Dir(file)) != shared {
			t.Errorf("%s: the server and the init container %s do not share the volume at %s", name, init.Name, filepath.Dir(file))
		}
		from := init.mountedAt(filepath.Dir(src))
		secret := ""
		for _, v := range spec.Volumes {
			if v.Name == from && v.Secret != nil {
				secret = v.Secret.SecretName
			}
		}
		value, ok := secretKeys[secret][filepath.Base(src)]
		var object map[string]string
		if !ok || json.Unmarshal([]byte(value), &object) != nil {
			t.Errorf("%s: %s comes from volume %q, Secret %q key %q, which secrets.yaml does not give as a JSON object of name → value (%q)",
				name, src, from, secret, filepath.Base(src), value)
		}
	}
}
