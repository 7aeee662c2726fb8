package clientgo

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"kcpt/peers/kcptest"
)

// What operators built on metadata-only watches and kubectl-like tools read: the metadata client and its informer
// (PartialObjectMetadata[List], protobuf preferred), server-side Tables of built-in kinds, custom resources and a
// custom resource's scale subresource, a dry-run delete, and a client-side request timeout sent as ?timeout=.
func TestMetadataAndTables(t *testing.T) {
	kcptest.EachWorkspace(t, func(t *testing.T, target kcptest.Target) {
		ctx := t.Context()
		rec := &kcptest.Recorder{}
		cfg := rest.CopyConfig(target.Config)
		cfg.Timeout = 20 * time.Second
		cfg = rec.Record(cfg)
		cs := kubernetes.NewForConfigOrDie(cfg)
		cms := cs.CoreV1().ConfigMaps(target.Namespace)
		meta := metadata.NewForConfigOrDie(cfg)
		cmGVR := corev1.SchemeGroupVersion.WithResource("configmaps")

		// A metadata informer syncs and follows changes.
		factory := metadatainformer.NewFilteredSharedInformerFactory(meta, 0, target.Namespace, nil)
		informer := factory.ForResource(cmGVR)
		factory.Start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
			t.Fatal("metadata informer did not sync")
		}
		if _, err := cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "meta", Labels: map[string]string{"app": "meta"}},
			Data:       map[string]string{"big": strings.Repeat("x", 1000)},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create: %v", err)
		}
		kcptest.Eventually(t, 20*time.Second, func() error {
			obj, err := informer.Lister().ByNamespace(target.Namespace).Get("meta")
			if err != nil {
				return err
			}
			m := obj.(*metav1.PartialObjectMetadata)
			// client-go's decoder clears TypeMeta, as it does for kube's answers.
			if m.Labels["app"] != "meta" || m.UID == "" {
				return fmt.Errorf("informer holds %+v", m)
			}
			return nil
		})

		// The metadata client's own list and get: metadata only, never the data.
		list, err := meta.Resource(cmGVR).Namespace(target.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=meta"})
		if err != nil || len(list.Items) != 1 || list.Items[0].Name != "meta" || list.ResourceVersion == "" {
			t.Fatalf("metadata list: %v %+v", err, list)
		}
		one, err := meta.Resource(cmGVR).Namespace(target.Namespace).Get(ctx, "meta", metav1.GetOptions{})
		if err != nil || one.UID != list.Items[0].UID {
			t.Fatalf("metadata get: %v %+v", err, one)
		}
		for _, ex := range rec.Exchanges() {
			if ex.Method == "GET" && strings.Contains(ex.URL.Path, "/configmaps") && ex.Status == 200 && !strings.Contains(ex.ResponseContentType, "protobuf") {
				t.Errorf("GET %s answered in %q: the metadata client prefers protobuf", ex.URL, ex.ResponseContentType)
			}
		}

		// A dry-run delete changes nothing.
		if err := cms.Delete(ctx, "meta", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Fatalf("dry-run delete: %v", err)
		}
		if _, err := cms.Get(ctx, "meta", metav1.GetOptions{}); err != nil {
			t.Fatalf("after a dry-run delete: %v", err)
		}

		// Tables, as kubectl asks for them.
		table := func(path string) metav1.Table {
			t.Helper()
			raw, err := cs.CoreV1().RESTClient().Get().AbsPath(path).
				SetHeader("Accept", "application/json;as=Table;g=meta.k8s.io;v=v1,application/json").DoRaw(ctx)
			if err != nil {
				t.Fatalf("GET %s as Table: %v", path, err)
			}
			var tbl metav1.Table
			if err := json.Unmarshal(raw, &tbl); err != nil || tbl.Kind != "Table" {
				t.Fatalf("GET %s as Table: %v %s", path, err, raw)
			}
			return tbl
		}
		columns := func(tbl metav1.Table) []string {
			var names []string
			for _, c := range tbl.ColumnDefinitions {
				names = append(names, c.Name)
			}
			return names
		}
		cmTable := table(fmt.Sprintf("/api/v1/namespaces/%s/configmaps", target.Namespace))
		if got := fmt.Sprint(columns(cmTable)); got != "[Name Data Age]" {
			t.Errorf("configmaps Table columns %s, want [Name Data Age]", got)
		}

		gvr := widgetCRD(t, target.Config)
		widgets := dynamic.NewForConfigOrDie(cfg).Resource(gvr).Namespace(target.Namespace)
		if _, err := widgets.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gvr.GroupVersion().String(), "kind": "Widget",
			"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"replicas": int64(3)},
		}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create widget: %v", err)
		}
		base := fmt.Sprintf("/apis/%s/namespaces/%s/widgets", gvr.GroupVersion(), target.Namespace)
		if got := fmt.Sprint(columns(table(base))); got != "[Name Age]" {
			t.Errorf("widgets Table columns %s, want [Name Age]", got)
		}
		scale := table(base + "/w/scale")
		if got := fmt.Sprint(columns(scale)); got != "[Name Desired Available Age]" {
			t.Errorf("widget scale Table columns %s, want [Name Desired Available Age]", got)
		}
		if len(scale.Rows) != 1 || fmt.Sprint(scale.Rows[0].Cells[:3]) != "[w 3 0]" {
			t.Errorf("widget scale Table rows %+v, want w 3 0", scale.Rows)
		}
		wMeta, err := meta.Resource(gvr).Namespace(target.Namespace).Get(ctx, "w", metav1.GetOptions{})
		if err != nil || wMeta.Name != "w" || wMeta.UID == "" {
			t.Errorf("metadata get of a custom resource: %v %+v", err, wMeta)
		}
		if _, err := meta.Resource(schema.GroupVersionResource{Group: gvr.Group, Version: gvr.Version, Resource: "nothings"}).
			Namespace(target.Namespace).Get(ctx, "w", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("metadata get of a resource nobody serves: want NotFound, got %v", err)
		}

		// client-go sends its timeout as ?timeout=, which kube reads as the request's deadline.
		sent := false
		for _, ex := range rec.Exchanges() {
			if ex.URL.Query().Get("timeout") == "20s" {
				sent = true
			}
		}
		if !sent {
			t.Error("no request carried ?timeout=20s")
		}
	})
}
