// Package provider holds the API provider's peer test: a controller serving every consumer of an APIExport through
// the URLs of its APIExportEndpointSlice, with client-go dynamic informers per URL (kcp's multicluster-provider is
// not served by the Go module proxy this project's machines reach).
package provider

import (
	"context"
	"fmt"
	"log"
	"sort"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"kcpt/peers/kcptest"
)

var (
	schemaGVR  = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha1", Resource: "apiresourceschemas"}
	exportGVR  = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha2", Resource: "apiexports"}
	bindingGVR = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha2", Resource: "apibindings"}
	sliceGVR   = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha1", Resource: "apiexportendpointslices"}
)

// A provider workspace exports a Gadget API; root and a nested workspace bind it, one before the controller starts
// and one after. The controller reads the endpoint slice, runs an informer on `<url>/clusters/*` per URL (as URLs
// appear), and writes each Gadget's status back through `<url>/clusters/<its cluster>`; both consumers' Gadgets are
// reconciled, and each consumer sees only its own.
func TestProviderServesEveryConsumer(t *testing.T) {
	ctx := t.Context()
	org := kcptest.CreateWorkspace(t, "root", "org", "root:organization")
	provider := kcptest.CreateWorkspace(t, org.Path, "provider", "")
	team := kcptest.CreateWorkspace(t, org.Path, "team", "")

	group := fmt.Sprintf("g%s.provider.peers.kcpt.dev", rand.String(6))
	gadgets := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}
	exportName := "gadgets"
	providerDyn := dynamic.NewForConfigOrDie(kcptest.ConfigForPath(t, provider.Path))
	createObject(t, providerDyn.Resource(schemaGVR), map[string]any{
		"apiVersion": "apis.kcp.io/v1alpha1", "kind": "APIResourceSchema",
		"metadata": map[string]any{"name": "v1.gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec":   map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}}},
					"status": map[string]any{"type": "object", "properties": map[string]any{"servedBy": map[string]any{"type": "string"}, "size": map[string]any{"type": "integer"}}},
				}},
			}},
		},
	})
	createObject(t, providerDyn.Resource(exportGVR), map[string]any{
		"apiVersion": "apis.kcp.io/v1alpha2", "kind": "APIExport",
		"metadata": map[string]any{"name": exportName},
		"spec": map[string]any{"resources": []any{map[string]any{
			"group": group, "name": "gadgets", "schema": "v1.gadgets." + group, "storage": map[string]any{"crd": map[string]any{}},
		}}},
	})

	// root binds before the controller starts.
	root := bind(t, "root", "root", provider.Path, exportName)

	reconciled := &reconcileLog{}
	controller := &endpointController{
		adminConfig: kcptest.ConfigForPath(t, provider.Path),
		gvr:         gadgets,
		log:         reconciled,
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		controller.run(ctx, t, providerDyn.Resource(sliceGVR), exportName)
	}()
	t.Cleanup(func() { <-stopped })

	createGadget(t, root, gadgets, "in-root", 1)
	waitServed(t, root, gadgets, "in-root", 1)

	// The nested workspace binds after the controller started.
	nested := bind(t, team.Path, team.ClusterName, provider.Path, exportName)
	createGadget(t, nested, gadgets, "in-nested", 2)
	waitServed(t, nested, gadgets, "in-nested", 2)

	// A new generation is served again.
	_, err := dynamic.NewForConfigOrDie(nested.Config).Resource(gadgets).Namespace(nested.Namespace).
		Patch(ctx, "in-nested", "application/merge-patch+json", []byte(`{"spec":{"size":7}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitServed(t, nested, gadgets, "in-nested", 7)

	// Each consumer sees its own Gadgets only.
	for _, c := range []kcptest.Target{root, nested} {
		list, err := dynamic.NewForConfigOrDie(c.Config).Resource(gadgets).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 {
			t.Errorf("%s lists %d gadgets, want its own one", c.Path, len(list.Items))
		}
	}
	if got := reconciled.clusters(); fmt.Sprint(got) != fmt.Sprint(sortedPair("root", team.ClusterName)) {
		t.Errorf("the controller reconciled gadgets in clusters %v, want root and %s", got, team.ClusterName)
	}
}

// endpointController follows an APIExportEndpointSlice and serves the export's consumers through every URL in it.
type endpointController struct {
	adminConfig *rest.Config
	gvr         schema.GroupVersionResource
	log         *reconcileLog
}

// run starts an informer per endpoint URL as URLs appear in the slice's status, until ctx ends (its errors go to
// stderr: it outlives the test's logging).
func (c *endpointController) run(ctx context.Context, t *testing.T, slices dynamic.ResourceInterface, sliceName string) {
	started := map[string]bool{}
	for ctx.Err() == nil {
		slice, err := slices.Get(ctx, sliceName, metav1.GetOptions{})
		if err == nil {
			endpoints, _, _ := unstructured.NestedSlice(slice.Object, "status", "endpoints")
			for _, e := range endpoints {
				url, _, _ := unstructured.NestedString(e.(map[string]any), "url")
				if url != "" && !started[url] {
					started[url] = true
					c.serve(ctx, t, url)
				}
			}
		} else if !apierrors.IsNotFound(err) && ctx.Err() == nil {
			log.Printf("reading the endpoint slice: %v", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// serve runs a dynamic informer on `<url>/clusters/*` and reconciles every Gadget it sees.
func (c *endpointController) serve(ctx context.Context, t *testing.T, url string) {
	wildcard := dynamic.NewForConfigOrDie(kcptest.ConfigForURL(t, c.adminConfig, url+"/clusters/*"))
	factory := dynamicinformer.NewDynamicSharedInformerFactory(wildcard, 0)
	informer := factory.ForResource(c.gvr).Informer()
	reconcile := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		if err := c.reconcile(ctx, t, url, u); err != nil && ctx.Err() == nil {
			log.Printf("reconciling %s: %v", u.GetName(), err)
		}
	}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    reconcile,
		UpdateFunc: func(_, obj any) { reconcile(obj) },
	})
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
}

// reconcile writes status.servedBy and status.size through the consumer's cluster under the endpoint URL.
func (c *endpointController) reconcile(ctx context.Context, t *testing.T, url string, g *unstructured.Unstructured) error {
	cluster := g.GetAnnotations()["kcp.io/cluster"]
	if cluster == "" {
		return fmt.Errorf("gadget %s/%s has no kcp.io/cluster annotation", g.GetNamespace(), g.GetName())
	}
	size, _, _ := unstructured.NestedInt64(g.Object, "spec", "size")
	if served, _, _ := unstructured.NestedString(g.Object, "status", "servedBy"); served == "provider" {
		if done, _, _ := unstructured.NestedInt64(g.Object, "status", "size"); done == size {
			return nil
		}
	}
	out := g.DeepCopy()
	_ = unstructured.SetNestedField(out.Object, "provider", "status", "servedBy")
	_ = unstructured.SetNestedField(out.Object, size, "status", "size")
	client := dynamic.NewForConfigOrDie(kcptest.ConfigForURL(t, c.adminConfig, url+"/clusters/"+cluster))
	if _, err := client.Resource(c.gvr).Namespace(g.GetNamespace()).UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil {
		return err
	}
	c.log.add(cluster)
	return nil
}

type reconcileLog struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (l *reconcileLog) add(cluster string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[cluster] = true
}

func (l *reconcileLog) clusters() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for c := range l.seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func sortedPair(a, b string) []string {
	out := []string{a, b}
	sort.Strings(out)
	return out
}

// bind creates an APIBinding of exportPath:exportName in the workspace at path, waits until it is Bound, and returns a
// fresh namespace there.
func bind(t *testing.T, path, clusterName, exportPath, exportName string) kcptest.Target {
	t.Helper()
	bindings := dynamic.NewForConfigOrDie(kcptest.ConfigForPath(t, path)).Resource(bindingGVR)
	name := kcptest.Name(exportName)
	createObject(t, bindings, map[string]any{
		"apiVersion": "apis.kcp.io/v1alpha2", "kind": "APIBinding",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"reference": map[string]any{"export": map[string]any{"path": exportPath, "name": exportName}}},
	})
	t.Cleanup(func() { _ = bindings.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	kcptest.Eventually(t, 30*time.Second, func() error {
		b, err := bindings.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if phase, _, _ := unstructured.NestedString(b.Object, "status", "phase"); phase != "Bound" {
			return fmt.Errorf("APIBinding %s in %s: phase %q, conditions %v", name, path, phase, b.Object["status"])
		}
		return nil
	})
	return kcptest.NewTarget(t, path, clusterName)
}

func createObject(t *testing.T, client dynamic.ResourceInterface, obj map[string]any) {
	t.Helper()
	if _, err := client.Create(t.Context(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating %s %v: %v", obj["kind"], obj["metadata"], err)
	}
}

func createGadget(t *testing.T, target kcptest.Target, gvr schema.GroupVersionResource, name string, size int64) {
	t.Helper()
	createObject(t, dynamic.NewForConfigOrDie(target.Config).Resource(gvr).Namespace(target.Namespace), map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": "Gadget",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"size": size},
	})
}

// waitServed waits until the consumer sees the provider's status on its Gadget for size.
func waitServed(t *testing.T, target kcptest.Target, gvr schema.GroupVersionResource, name string, size int64) {
	t.Helper()
	client := dynamic.NewForConfigOrDie(target.Config).Resource(gvr).Namespace(target.Namespace)
	kcptest.Eventually(t, 30*time.Second, func() error {
		g, err := client.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		served, _, _ := unstructured.NestedString(g.Object, "status", "servedBy")
		done, _, _ := unstructured.NestedInt64(g.Object, "status", "size")
		if served != "provider" || done != size {
			return fmt.Errorf("gadget %s in %s: status %v, want served for size %d", name, target.Path, g.Object["status"], size)
		}
		return nil
	})
}
