package controllerruntime

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kcpt/peers/kcptest"
)

// envtest with an existing cluster, as an operator's suite_test.go sets it up, on workspaces of kcpt: the CRDs of
// CRDDirectoryPaths installed, then the operator's test. No kube-apiserver or etcd binaries are involved.
//
// From a shell the same is `export $(kcpt testenv -o env) && USE_EXISTING_CLUSTER=true go test ./...` (see
// TestEnvtestFromEnvironment); here each case gets a workspace of its own:
//   - root: Config from the admin kubeconfig's root context;
//   - testenv: a fresh workspace from `kcpt testenv` (root:testenv-…), Config from the kubeconfig it wrote;
//   - testenv-nested: the same under an organization (`kcpt testenv --parent root:org-…`).
func TestEnvtestExistingCluster(t *testing.T) {
	cases := map[string]func(t *testing.T) *rest.Config{
		"root": func(t *testing.T) *rest.Config { return kcptest.ContextConfig(t, "root") },
		"testenv": func(t *testing.T) *rest.Config {
			return testenvConfig(t, kcptest.Testenv(t))
		},
		"testenv-nested": func(t *testing.T) *rest.Config {
			org := kcptest.CreateWorkspace(t, "root", "org", "root:organization")
			res := kcptest.Testenv(t, "--parent", org.Path)
			if !strings.HasPrefix(res.Workspace, org.Path+":testenv-") {
				t.Fatalf("kcpt testenv --parent %s made %s", org.Path, res.Workspace)
			}
			return testenvConfig(t, res)
		},
	}
	for name, config := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := &envtest.Environment{
				UseExistingCluster:    ptr.To(true),
				Config:                config(t),
				CRDDirectoryPaths:     []string{crdDir},
				ErrorIfCRDPathMissing: true,
			}
			runOperatorSuite(t, env)
		})
	}
}

// The shell's way: KUBECONFIG from `kcpt testenv -o env` and USE_EXISTING_CLUSTER=true, no Config in the code.
// (Not parallel: it sets the process's environment.)
func TestEnvtestFromEnvironment(t *testing.T) {
	res := kcptest.Testenv(t)
	t.Setenv("KUBECONFIG", res.Kubeconfig)
	t.Setenv("USE_EXISTING_CLUSTER", "true")
	env := &envtest.Environment{CRDDirectoryPaths: []string{crdDir}, ErrorIfCRDPathMissing: true}
	cfg := runOperatorSuite(t, env)
	if !strings.HasSuffix(cfg.Host, "/clusters/"+res.Workspace) {
		t.Errorf("envtest connected to %s, not to the workspace %s", cfg.Host, res.Workspace)
	}
}

// runOperatorSuite is what an operator's envtest suite does: Start (installing the CRDs), a manager with the
// controller, a test against it, Stop.
func runOperatorSuite(t *testing.T, env *envtest.Environment) *rest.Config {
	t.Helper()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest.Start: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest.Stop: %v", err)
		}
	})
	if len(env.CRDs) != 1 || env.CRDs[0].GetName() != "widgets.peers.kcpt.dev" {
		t.Fatalf("envtest installed %d CRDs, want widgets.peers.kcpt.dev", len(env.CRDs))
	}

	c := directClient(t, cfg)
	ns := kcptest.Name("suite")
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	startWidgetManager(t, cfg, ns)
	createWidget(t, c, ns, "from-envtest", 2)
	waitReconciled(t, c, ns, "from-envtest", 2)
	return cfg
}

func testenvConfig(t testing.TB, res kcptest.TestenvResult) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", res.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != res.URL {
		t.Fatalf("the kubeconfig of kcpt testenv points at %s, it printed %s", cfg.Host, res.URL)
	}
	return cfg
}
