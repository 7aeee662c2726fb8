// Package controllerruntime holds the controller-runtime peer tests: a Widget operator (these types and
// widget_controller.go, written as an operator's own code is) run by a manager, and tested with envtest against
// workspaces of kcpt.
package controllerruntime

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the Widget API of testdata/crds.
var GroupVersion = schema.GroupVersion{Group: "peers.kcpt.dev", Version: "v1"}

// WidgetSpec is what a Widget asks for.
type WidgetSpec struct {
	Size int `json:"size"`
}

// WidgetStatus is what the controller reports.
type WidgetStatus struct {
	Ready              bool   `json:"ready,omitempty"`
	ConfigMap          string `json:"configMap,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// Widget is reconciled into a ConfigMap holding its size.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyObject copies the Widget (its spec and status hold only values).
func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject copies the list.
func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &out
}

// AddToScheme registers Widget and WidgetList.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
