package kcptest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// WorkspaceGVR is kcp's Workspace resource (tenancy.kcp.io/v1alpha1), served in every workspace for its children.
var WorkspaceGVR = schema.GroupVersionResource{Group: "tenancy.kcp.io", Version: "v1alpha1", Resource: "workspaces"}

// Workspace is a Ready workspace the test created.
type Workspace struct {
	// Path is its canonical path (root:org-x:team-y).
	Path string
	// ClusterName is its logical cluster (spec.cluster): the `kcp.io/cluster` annotation of every object in it.
	ClusterName string
	// URL is its spec.URL (https://…/clusters/<path>).
	URL string
}

// Name is a fresh DNS-1123 name: prefix and five random characters.
func Name(prefix string) string {
	return fmt.Sprintf("%s-%s", prefix, rand.String(5))
}

// CreateWorkspace creates a child of parentPath named prefix-xxxxx (wsType "" takes the parent type's default
// child type), waits until it is Ready, and deletes it when the test ends.
func CreateWorkspace(t testing.TB, parentPath, prefix, wsType string) Workspace {
	t.Helper()
	ctx := Context(t)
	client := dynamic.NewForConfigOrDie(ConfigForPath(t, parentPath)).Resource(WorkspaceGVR)
	name := Name(prefix)
	spec := map[string]any{}
	if wsType != "" {
		path, typeName := "root", wsType
		if i := strings.LastIndex(wsType, ":"); i >= 0 {
			path, typeName = wsType[:i], wsType[i+1:]
		}
		spec["type"] = map[string]any{"name": typeName, "path": path}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tenancy.kcp.io/v1alpha1",
		"kind":       "Workspace",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
	if _, err := client.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating workspace %s in %s: %v", name, parentPath, err)
	}
	t.Cleanup(func() {
		err := client.Delete(context.Background(), name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Logf("deleting workspace %s:%s: %v", parentPath, name, err)
		}
	})
	var ws Workspace
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		phase, _, _ := unstructured.NestedString(got.Object, "status", "phase")
		if phase != "Ready" {
			return false, nil
		}
		ws.ClusterName, _, _ = unstructured.NestedString(got.Object, "spec", "cluster")
		ws.URL, _, _ = unstructured.NestedString(got.Object, "spec", "URL")
		return true, nil
	})
	if err != nil {
		t.Fatalf("workspace %s:%s not Ready: %v", parentPath, name, err)
	}
	ws.Path = parentPath + ":" + name
	if !strings.HasSuffix(ws.URL, "/clusters/"+ws.Path) {
		t.Fatalf("workspace %s: spec.URL %q does not end in /clusters/%s", ws.Path, ws.URL, ws.Path)
	}
	return ws
}

// NestedWorkspace creates root:org-xxxxx (an organization) and in it team-xxxxx, both Ready.
func NestedWorkspace(t testing.TB) Workspace {
	t.Helper()
	org := CreateWorkspace(t, "root", "org", "root:organization")
	return CreateWorkspace(t, org.Path, "team", "")
}

// Context is a context cancelled when the test ends (and after a minute at most).
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
