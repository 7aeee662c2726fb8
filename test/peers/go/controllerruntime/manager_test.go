package controllerruntime

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"kcpt/peers/kcptest"
)

// A manager reconciling the Widget CRD in a workspace: finalizer added, owned ConfigMap created and updated, status
// through the subresource, events recorded; on delete the finalizer is removed by the controller and the ConfigMap
// garbage-collected.
func TestManager(t *testing.T) {
	kcptest.EachWorkspace(t, func(t *testing.T, target kcptest.Target) {
		c := directClient(t, target.Config)
		installWidgetCRD(t, c)
		startWidgetManager(t, target.Config, target.Namespace)
		ns := target.Namespace

		createWidget(t, c, ns, "w", 3)
		w := waitReconciled(t, c, ns, "w", 3)
		if !controllerutil.ContainsFinalizer(w, Finalizer) {
			t.Errorf("finalizers %v lack %s", w.Finalizers, Finalizer)
		}

		w.Spec.Size = 5
		if err := c.Update(t.Context(), w); err != nil {
			t.Fatalf("update: %v", err)
		}
		w = waitReconciled(t, c, ns, "w", 5)
		if w.Generation != 2 {
			t.Errorf("generation %d after one spec change, want 2", w.Generation)
		}
		kcptest.Eventually(t, 10*time.Second, func() error {
			events, err := eventReasons(t, c, ns, "w")
			if err != nil {
				return err
			}
			ev, ok := events["ConfigMapSynced"]
			if !ok {
				return fmt.Errorf("no ConfigMapSynced event about w: %v", events)
			}
			if ev.ReportingController != "peer-widgets" || ev.Regarding.UID != w.UID || ev.Related == nil || ev.Related.Name != "w-config" {
				return fmt.Errorf("event %+v", ev)
			}
			return nil
		})

		if err := c.Delete(t.Context(), w); err != nil {
			t.Fatalf("delete: %v", err)
		}
		kcptest.Eventually(t, 20*time.Second, func() error {
			err := c.Get(t.Context(), client.ObjectKeyFromObject(w), &Widget{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("widget still there (finalizer not released?): %v", err)
			}
			err = c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "w-config"}, &corev1.ConfigMap{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("owned configmap not garbage-collected: %v", err)
			}
			events, err := eventReasons(t, c, ns, "w")
			if err != nil {
				return err
			}
			if _, ok := events["Released"]; !ok {
				return fmt.Errorf("no Released event: %v", events)
			}
			return nil
		})
	})
}
