package clientgo

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/rand"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"kcpt/peers/kcptest"
)

// Shared informers sync through the streaming list (a watch with sendInitialEvents, ended by the
// `k8s.io/initial-events-end` bookmark), which client-go's WatchListClient gate turns on by default, with no
// fallback to a plain LIST; what was streamed equals a LIST at the synced resourceVersion; then they follow every
// change.
func TestSharedInformers(t *testing.T) {
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Fatal("client-go's WatchListClient feature gate is off: the informers would not use the streaming list")
	}
	eachEncoding(t, func(t *testing.T, enc encoding, target kcptest.Target) {
		ctx := t.Context()
		rec := &kcptest.Recorder{}
		cs := kubernetes.NewForConfigOrDie(rec.Record(enc.configure(target.Config)))
		cms := cs.CoreV1().ConfigMaps(target.Namespace)
		for i := range 3 {
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("old-%d", i)}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cs.CoreV1().Secrets(target.Namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}

		factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(target.Namespace))
		configMaps := factory.Core().V1().ConfigMaps()
		secrets := factory.Core().V1().Secrets()
		events := recordEvents(t, configMaps.Informer())
		_ = secrets.Informer()
		factory.Start(ctx.Done())
		t.Cleanup(factory.Shutdown)
		waitForSync(t, factory)

		if cached, _ := configMaps.Lister().ConfigMaps(target.Namespace).List(labels.Everything()); len(cached) != 3 {
			t.Errorf("configmap lister holds %d objects, want 3", len(cached))
		}
		if _, err := secrets.Lister().Secrets(target.Namespace).Get("s"); err != nil {
			t.Errorf("secret lister: %v", err)
		}
		events.expect(t, "add old-0", "add old-1", "add old-2")
		assertSnapshot(t, cms, configMaps.Informer())

		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "live"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data["v"] = "2"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, "old-0", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		events.expect(t, "add live", "update live v=2", "delete old-0")
		kcptest.Eventually(t, 5*time.Second, func() error {
			if _, err := configMaps.Lister().ConfigMaps(target.Namespace).Get("old-0"); !apierrors.IsNotFound(err) {
				return fmt.Errorf("old-0 still cached: %v", err)
			}
			return nil
		})

		assertStreamedList(t, rec, "/configmaps")
		assertStreamedList(t, rec, "/secrets")
		assertAnsweredIn(t, rec, enc, "/configmaps")
	})
}

// A `/clusters/*` informer as a system:masters identity (the admin kubeconfig's shard-base context) sees the objects
// of every workspace, each with its kcp.io/cluster annotation, and follows changes in all of them. kcp-admin, who is
// not system:masters, is refused the wildcard.
func TestWildcardInformer(t *testing.T) {
	ctx := t.Context()
	root := kcptest.NewTarget(t, "root", "root")
	ws := kcptest.NestedWorkspace(t)
	nested := kcptest.NewTarget(t, ws.Path, ws.ClusterName)
	label := "peers.kcpt.dev/wildcard"
	value := rand.String(8)
	create := func(target kcptest.Target, name string) {
		t.Helper()
		_, err := kubernetes.NewForConfigOrDie(target.Config).CoreV1().ConfigMaps(target.Namespace).Create(ctx,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{label: value}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s in %s: %v", name, target.Path, err)
		}
	}
	create(root, "in-root")
	create(nested, "in-nested")

	rec := &kcptest.Recorder{}
	cs := kubernetes.NewForConfigOrDie(rec.Record(kcptest.ShardAdminConfig(t, "*")))
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = label + "=" + value
	}))
	informer := factory.Core().V1().ConfigMaps()
	events := recordEvents(t, informer.Informer())
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	waitForSync(t, factory)

	clusters := map[string]string{}
	for _, obj := range informer.Informer().GetStore().List() {
		cm := obj.(*corev1.ConfigMap)
		clusters[cm.Name] = cm.Annotations["kcp.io/cluster"]
	}
	if want := map[string]string{"in-root": "root", "in-nested": ws.ClusterName}; fmt.Sprint(clusters) != fmt.Sprint(want) {
		t.Errorf("wildcard informer holds %v, want %v", clusters, want)
	}
	events.expect(t, "add in-nested", "add in-root")

	create(nested, "later")
	if err := kubernetes.NewForConfigOrDie(root.Config).CoreV1().ConfigMaps(root.Namespace).Delete(ctx, "in-root", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	events.expect(t, "add later", "delete in-root")
	assertStreamedList(t, rec, "/configmaps")
	for _, ex := range rec.Exchanges() {
		if !strings.HasPrefix(ex.URL.Path, "/clusters/*/") {
			t.Errorf("the wildcard informer asked for %s", ex.URL.Path)
		}
	}

	_, err := kubernetes.NewForConfigOrDie(kcptest.ConfigForPath(t, "*")).CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("kcp-admin listing /clusters/*: want Forbidden, got %v", err)
	}
}

// eventLog collects an informer's notifications as "add NAME", "update NAME k=v", "delete NAME".
type eventLog chan string

func recordEvents(t *testing.T, informer cache.SharedIndexInformer) eventLog {
	t.Helper()
	log := make(eventLog, 1000)
	name := func(obj any) string {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		return obj.(metav1.Object).GetName()
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { log <- "add " + name(obj) },
		UpdateFunc: func(_, obj any) {
			var pairs []string
			if cm, ok := obj.(*corev1.ConfigMap); ok {
				for k, v := range cm.Data {
					pairs = append(pairs, k+"="+v)
				}
			}
			sort.Strings(pairs)
			log <- strings.TrimSpace("update " + name(obj) + " " + strings.Join(pairs, ","))
		},
		DeleteFunc: func(obj any) { log <- "delete " + name(obj) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// expect waits for the next len(want) notifications; initial adds come in any order, so each batch is compared
// sorted, and a batch of changes is expected in order.
func (log eventLog) expect(t *testing.T, want ...string) {
	t.Helper()
	var got []string
	timeout := time.After(20 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-log:
			got = append(got, ev)
		case <-timeout:
			t.Fatalf("informer notifications %v, want %v", got, want)
		}
	}
	if strings.HasPrefix(want[0], "add ") && strings.HasPrefix(want[len(want)-1], "add ") {
		sort.Strings(got)
		want = append([]string(nil), want...)
		sort.Strings(want)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("informer notifications %v, want %v", got, want)
	}
}

func waitForSync(t *testing.T, factory informers.SharedInformerFactory) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}
}

// assertStreamedList checks the informer's requests for a resource: the first is the streaming list (watch=true,
// sendInitialEvents=true, resourceVersionMatch=NotOlderThan, allowWatchBookmarks=true) and no plain LIST followed
// (client-go falls back to one when the streaming list fails; assertSnapshot's LIST at an exact resourceVersion is
// the test's own).
func assertStreamedList(t *testing.T, rec *kcptest.Recorder, resource string) {
	t.Helper()
	var requests []url.Values
	for _, ex := range rec.Exchanges() {
		if ex.Method == "GET" && strings.HasSuffix(ex.URL.Path, resource) {
			requests = append(requests, ex.URL.Query())
		}
	}
	if len(requests) == 0 {
		t.Fatalf("no request for %s", resource)
	}
	first := requests[0]
	for key, want := range map[string]string{"watch": "true", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true"} {
		if first.Get(key) != want {
			t.Errorf("the informer's first request for %s has %s=%q, want %q (query %v)", resource, key, first.Get(key), want, first)
		}
	}
	for _, q := range requests[1:] {
		if q.Get("watch") != "true" && q.Get("resourceVersionMatch") != "Exact" {
			t.Errorf("the informer fell back to a plain LIST of %s: %v", resource, q)
		}
	}
}

// assertSnapshot compares what the informer streamed with a LIST at the resourceVersion it synced to, as client-go's
// own watch-list consistency check does, by name and resourceVersion. (That check, KUBE_WATCHLIST_INCONSISTENCY_DETECTOR,
// also compares TypeMeta, which kcpt's LIST items carry and kube's built-in LIST items leave out.)
func assertSnapshot(t *testing.T, cms interface {
	List(context.Context, metav1.ListOptions) (*corev1.ConfigMapList, error)
}, informer cache.SharedIndexInformer) {
	t.Helper()
	rv := informer.LastSyncResourceVersion()
	list, err := cms.List(t.Context(), metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatalf("LIST at the synced resourceVersion %s: %v", rv, err)
	}
	var listed, streamed []string
	for _, cm := range list.Items {
		listed = append(listed, cm.Name+"@"+cm.ResourceVersion)
	}
	for _, obj := range informer.GetStore().List() {
		cm := obj.(*corev1.ConfigMap)
		streamed = append(streamed, cm.Name+"@"+cm.ResourceVersion)
	}
	sort.Strings(listed)
	sort.Strings(streamed)
	if fmt.Sprint(listed) != fmt.Sprint(streamed) {
		t.Errorf("streamed %v, LIST at %s has %v", streamed, rv, listed)
	}
}
