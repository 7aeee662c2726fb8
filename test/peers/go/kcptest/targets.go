package kcptest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Target is where one run of a peer test works: a namespace of its own in a workspace.
type Target struct {
	// Path is the workspace: `root`, or a fresh root:org-xxxxx:team-xxxxx.
	Path string
	// ClusterName is the workspace's logical cluster (`root` for root).
	ClusterName string
	// Namespace was created for this run.
	Namespace string
	// Config is kcp-admin's config for the workspace (the root context's credentials).
	Config *rest.Config
}

// EachWorkspace runs fn as two parallel subtests: "root" (a fresh namespace in root) and "nested" (a fresh namespace
// in a fresh root:org:team workspace).
func EachWorkspace(t *testing.T, fn func(t *testing.T, target Target)) {
	t.Helper()
	t.Run("root", func(t *testing.T) {
		t.Parallel()
		fn(t, NewTarget(t, "root", "root"))
	})
	t.Run("nested", func(t *testing.T) {
		t.Parallel()
		ws := NestedWorkspace(t)
		fn(t, NewTarget(t, ws.Path, ws.ClusterName))
	})
}

// NewTarget creates a namespace in the workspace at path (deleted when the test ends).
func NewTarget(t testing.TB, path, clusterName string) Target {
	t.Helper()
	cfg := ConfigForPath(t, path)
	ns := Name("peer")
	client := kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces()
	if _, err := client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s in %s: %v", ns, path, err)
	}
	t.Cleanup(func() { _ = client.Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	return Target{Path: path, ClusterName: clusterName, Namespace: ns, Config: cfg}
}
