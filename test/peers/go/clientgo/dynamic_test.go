package clientgo

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"kcpt/peers/kcptest"
)

// The dynamic client on a custom resource (validation, status subresource, patches, apply) and on a built-in one.
func TestDynamicClient(t *testing.T) {
	kcptest.EachWorkspace(t, func(t *testing.T, target kcptest.Target) {
		ctx := t.Context()
		gvr := widgetCRD(t, target.Config)
		dyn := dynamic.NewForConfigOrDie(target.Config)
		widgets := dyn.Resource(gvr).Namespace(target.Namespace)
		apiVersion := gvr.GroupVersion().String()

		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion,
			"kind":       "Widget",
			"metadata":   map[string]any{"name": "w1"},
			"spec":       map[string]any{"size": int64(3), "color": "red"},
		}}
		created, err := widgets.Create(ctx, w, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if created.GetUID() == "" || created.GetGeneration() != 1 {
			t.Errorf("created: uid %q generation %d", created.GetUID(), created.GetGeneration())
		}

		// The schema is enforced: 422 naming the field.
		bad := w.DeepCopy()
		bad.SetName("bad")
		_ = unstructured.SetNestedField(bad.Object, int64(-1), "spec", "size")
		_, err = widgets.Create(ctx, bad, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("create with spec.size -1: want Invalid, got %v", err)
		} else if causes := err.(apierrors.APIStatus).Status().Details.Causes; len(causes) == 0 || causes[0].Field != "spec.size" {
			t.Errorf("Invalid causes %+v, want spec.size", causes)
		}

		// Status goes through the subresource only: an update of the main resource ignores it, UpdateStatus sets it
		// without touching spec or generation.
		withStatus := created.DeepCopy()
		_ = unstructured.SetNestedField(withStatus.Object, true, "status", "ready")
		afterUpdate, err := widgets.Update(ctx, withStatus, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		if _, found, _ := unstructured.NestedBool(afterUpdate.Object, "status", "ready"); found {
			t.Errorf("status written through the main resource: %v", afterUpdate.Object["status"])
		}
		withStatus.SetResourceVersion(afterUpdate.GetResourceVersion())
		statusUpdated, err := widgets.UpdateStatus(ctx, withStatus, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update status: %v", err)
		}
		if ready, _, _ := unstructured.NestedBool(statusUpdated.Object, "status", "ready"); !ready || statusUpdated.GetGeneration() != 1 {
			t.Errorf("after UpdateStatus: ready %v generation %d", ready, statusUpdated.GetGeneration())
		}

		// Merge and JSON patches (custom resources take no strategic merge patch), then server-side apply.
		patched, err := widgets.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("merge patch: %v", err)
		}
		if color, _, _ := unstructured.NestedString(patched.Object, "spec", "color"); color != "blue" || patched.GetGeneration() != 2 {
			t.Errorf("merge patch: color %q generation %d", color, patched.GetGeneration())
		}
		if _, err := widgets.Patch(ctx, "w1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":4}]`), metav1.PatchOptions{}); err != nil {
			t.Errorf("json patch: %v", err)
		}
		if _, err := widgets.Patch(ctx, "w1", types.StrategicMergePatchType, []byte(`{"spec":{"size":5}}`), metav1.PatchOptions{}); !apierrors.IsUnsupportedMediaType(err) {
			t.Errorf("strategic merge patch of a custom resource: want 415, got %v", err)
		}
		applied, err := widgets.Apply(ctx, "w2", &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion, "kind": "Widget",
			"metadata": map[string]any{"name": "w2"},
			"spec":     map[string]any{"size": int64(7)},
		}}, metav1.ApplyOptions{FieldManager: "peer-dynamic"})
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if managers := applied.GetManagedFields(); len(managers) != 1 || managers[0].Manager != "peer-dynamic" || managers[0].Operation != metav1.ManagedFieldsOperationApply {
			t.Errorf("managedFields after apply: %+v", managers)
		}

		list, err := widgets.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 2 {
			t.Fatalf("list: %v %+v", err, list)
		}
		if list.GetKind() != "WidgetList" || list.GetAPIVersion() != apiVersion {
			t.Errorf("list kind %s apiVersion %s", list.GetKind(), list.GetAPIVersion())
		}

		// A built-in resource through the same client.
		cms := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(target.Namespace)
		cm := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "plain"},
			"data":     map[string]any{"k": "v"},
		}}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create configmap: %v", err)
		}
		if got, err := cms.Get(ctx, "plain", metav1.GetOptions{}); err != nil || got.Object["data"].(map[string]any)["k"] != "v" {
			t.Errorf("get configmap: %v %+v", err, got)
		}

		if err := widgets.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete: %v", err)
		}
		if _, err := widgets.Get(ctx, "w1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: want NotFound, got %v", err)
		}
	})
}
