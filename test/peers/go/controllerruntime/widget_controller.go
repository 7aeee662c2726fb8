package controllerruntime

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Finalizer keeps a Widget until the controller has let go of it.
const Finalizer = "peers.kcpt.dev/cleanup"

// WidgetReconciler keeps a ConfigMap `<widget>-config` (owned by the Widget, so deleted with it) holding the
// Widget's size, reports it in the Widget's status, and records what it does as events.
type WidgetReconciler struct {
	client.Client
	Recorder recorder.EventRecorder
}

// Reconcile brings one Widget's ConfigMap, finalizer and status up to date.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var w Widget
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !w.DeletionTimestamp.IsZero() {
		if controllerutil.RemoveFinalizer(&w, Finalizer) {
			r.Recorder.Eventf(&w, nil, corev1.EventTypeNormal, "Released", "Delete", "released widget %s", w.Name)
			return ctrl.Result{}, r.Update(ctx, &w)
		}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(&w, Finalizer) {
		if err := r.Update(ctx, &w); err != nil {
			return ctrl.Result{}, err
		}
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.Name + "-config", Namespace: w.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"size": strconv.Itoa(w.Spec.Size)}
		return controllerutil.SetControllerReference(&w, cm, r.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	if op != controllerutil.OperationResultNone {
		r.Recorder.Eventf(&w, cm, corev1.EventTypeNormal, "ConfigMapSynced", "Reconcile", "configmap %s %s with size %d", cm.Name, op, w.Spec.Size)
	}

	want := WidgetStatus{Ready: true, ConfigMap: cm.Name, ObservedGeneration: w.Generation}
	if w.Status == want {
		return ctrl.Result{}, nil
	}
	w.Status = want
	return ctrl.Result{}, r.Status().Update(ctx, &w)
}

// SetupWithManager registers the controller for Widgets and the ConfigMaps they own.
func (r *WidgetReconciler) SetupWithManager(mgr ctrl.Manager, name string) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(&Widget{}).
		Owns(&corev1.ConfigMap{}).
		// Each test runs its own manager in this process: names repeat.
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
}
