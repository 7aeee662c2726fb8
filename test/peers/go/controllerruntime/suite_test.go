package controllerruntime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"kcpt/peers/kcptest"
)

// crdDir holds the Widget CRD, as an operator's config/crd/bases does.
var crdDir = filepath.Join("testdata", "crds")

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// errorsOnly logs controller-runtime's errors to stderr and drops its info lines.
var errorsOnly = funcr.New(func(prefix, args string) {
	if strings.Contains(args, `"error"`) {
		fmt.Fprintln(os.Stderr, prefix, args)
	}
}, funcr.Options{})

func init() { ctrllog.SetLogger(errorsOnly) }

// startWidgetManager runs a manager with the Widget controller on cfg, its cache limited to namespace, until the test
// ends.
func startWidgetManager(t *testing.T, cfg *rest.Config, namespace string) ctrl.Manager {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Logger:                 errorsOnly,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
	})
	if err != nil {
		t.Fatalf("new manager: %v", err)
	}
	r := &WidgetReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("peer-widgets")}
	if err := r.SetupWithManager(mgr, "widget"); err != nil {
		t.Fatalf("setting up the controller: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return mgr
}

// directClient reads and writes without a cache, as a test's assertions should.
func directClient(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// installWidgetCRD creates the CRD of crdDir (or finds it there) and waits until it is Established.
func installWidgetCRD(t *testing.T, c client.Client) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(crdDir, "widgets.peers.kcpt.dev.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating the Widget CRD: %v", err)
	}
	kcptest.Eventually(t, 20*time.Second, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(crd), crd); err != nil {
			return err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("not Established: %+v", crd.Status.Conditions)
	})
}

// createWidget creates Widget name of size in namespace.
func createWidget(t *testing.T, c client.Client, namespace, name string, size int) *Widget {
	t.Helper()
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: WidgetSpec{Size: size}}
	if err := c.Create(t.Context(), w); err != nil {
		t.Fatalf("creating widget %s: %v", name, err)
	}
	return w
}

// waitReconciled waits until the Widget's status reports its current generation ready and its ConfigMap, owned by
// it as controller, holds size.
func waitReconciled(t *testing.T, c client.Client, namespace, name string, size int) *Widget {
	t.Helper()
	w := &Widget{}
	kcptest.Eventually(t, 20*time.Second, func() error {
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name}, w); err != nil {
			return err
		}
		if !w.Status.Ready || w.Status.ObservedGeneration != w.Generation || w.Status.ConfigMap != name+"-config" {
			return fmt.Errorf("widget status %+v at generation %d", w.Status, w.Generation)
		}
		cm := &corev1.ConfigMap{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name + "-config"}, cm); err != nil {
			return err
		}
		if cm.Data["size"] != fmt.Sprint(size) {
			return fmt.Errorf("configmap data %v, want size %d", cm.Data, size)
		}
		owner := metav1.GetControllerOf(cm)
		if owner == nil || owner.UID != w.UID || owner.Kind != "Widget" || owner.BlockOwnerDeletion == nil || !*owner.BlockOwnerDeletion {
			return fmt.Errorf("configmap owner references %+v, want the widget %s as controller", cm.OwnerReferences, w.UID)
		}
		return nil
	})
	return w
}

// eventReasons lists the reasons of the events.k8s.io/v1 Events about the named object in namespace.
func eventReasons(t *testing.T, c client.Client, namespace, name string) (map[string]eventsv1.Event, error) {
	t.Helper()
	var list eventsv1.EventList
	if err := c.List(t.Context(), &list, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	out := map[string]eventsv1.Event{}
	for _, ev := range list.Items {
		if ev.Regarding.Name == name {
			out[ev.Reason] = ev
		}
	}
	return out, nil
}
