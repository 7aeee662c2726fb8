package clientgo

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	"kcpt/peers/kcptest"
)

// Server-side apply with client-go's apply configurations: field ownership, removal of fields a manager stops
// applying, conflicts between managers and forced takeover, and extracting what a manager owns.
func TestServerSideApply(t *testing.T) {
	eachEncoding(t, func(t *testing.T, enc encoding, target kcptest.Target) {
		ctx := t.Context()
		rec := &kcptest.Recorder{}
		cms := kubernetes.NewForConfigOrDie(rec.Record(enc.configure(target.Config))).CoreV1().ConfigMaps(target.Namespace)

		first, err := cms.Apply(ctx, corev1ac.ConfigMap("app", target.Namespace).
			WithLabels(map[string]string{"tier": "web"}).
			WithData(map[string]string{"a": "1", "b": "2"}), metav1.ApplyOptions{FieldManager: "alice"})
		if err != nil {
			t.Fatalf("apply (create): %v", err)
		}
		if first.Data["a"] != "1" || first.Data["b"] != "2" || first.Labels["tier"] != "web" {
			t.Errorf("applied object: %+v", first)
		}
		if mf := first.ManagedFields; len(mf) != 1 || mf[0].Manager != "alice" || mf[0].Operation != metav1.ManagedFieldsOperationApply {
			t.Errorf("managedFields: %+v", mf)
		}

		// alice no longer applies b: it is removed, as she was its only owner.
		second, err := cms.Apply(ctx, corev1ac.ConfigMap("app", target.Namespace).
			WithLabels(map[string]string{"tier": "web"}).
			WithData(map[string]string{"a": "1"}), metav1.ApplyOptions{FieldManager: "alice"})
		if err != nil {
			t.Fatalf("apply without b: %v", err)
		}
		if _, ok := second.Data["b"]; ok {
			t.Errorf("b is still there after its only manager stopped applying it: %v", second.Data)
		}

		// bob changing a conflicts with alice; forced, he takes it over.
		bobs := corev1ac.ConfigMap("app", target.Namespace).WithData(map[string]string{"a": "bob"})
		_, err = cms.Apply(ctx, bobs, metav1.ApplyOptions{FieldManager: "bob"})
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "alice") || !strings.Contains(err.Error(), ".data.a") {
			t.Fatalf("bob's apply: want a conflict with alice on .data.a, got %v", err)
		}
		forced, err := cms.Apply(ctx, bobs, metav1.ApplyOptions{FieldManager: "bob", Force: true})
		if err != nil || forced.Data["a"] != "bob" {
			t.Fatalf("forced apply: %v %+v", err, forced)
		}

		// What each manager owns now, as a controller extracts it before applying again.
		alices, err := corev1ac.ExtractConfigMap(forced, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if alices.Data != nil || alices.Labels["tier"] != "web" {
			t.Errorf("alice owns data %v labels %v; want no data, the tier label", alices.Data, alices.Labels)
		}
		bobsNow, err := corev1ac.ExtractConfigMap(forced, "bob")
		if err != nil {
			t.Fatal(err)
		}
		if bobsNow.Data["a"] != "bob" || bobsNow.Labels != nil {
			t.Errorf("bob owns data %v labels %v; want a=bob only", bobsNow.Data, bobsNow.Labels)
		}

		// A dry run changes nothing.
		dry, err := cms.Apply(ctx, corev1ac.ConfigMap("app", target.Namespace).WithData(map[string]string{"a": "dry"}),
			metav1.ApplyOptions{FieldManager: "bob", DryRun: []string{metav1.DryRunAll}})
		if err != nil || dry.Data["a"] != "dry" {
			t.Errorf("dry-run apply: %v %+v", err, dry)
		}
		if got, err := cms.Get(ctx, "app", metav1.GetOptions{}); err != nil || got.Data["a"] != "bob" {
			t.Errorf("after the dry run: %v %+v", err, got)
		}
		assertAnsweredIn(t, rec, enc, "/configmaps")
	})
}
