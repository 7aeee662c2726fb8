package clientgo

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"kcpt/peers/kcptest"
)

// The typed clientset's whole CRUD surface on ConfigMaps, Secrets and Leases, in JSON and in protobuf.
func TestTypedCRUD(t *testing.T) {
	eachEncoding(t, func(t *testing.T, enc encoding, target kcptest.Target) {
		ctx := t.Context()
		rec := &kcptest.Recorder{}
		cs := kubernetes.NewForConfigOrDie(rec.Record(enc.configure(target.Config)))
		cms := cs.CoreV1().ConfigMaps(target.Namespace)

		created, err := cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "settings", Labels: map[string]string{"app": "peer"}},
			Data:       map[string]string{"greeting": "hello"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() {
			t.Fatalf("created object lacks uid/resourceVersion/creationTimestamp: %+v", created.ObjectMeta)
		}
		if got := created.Annotations["kcp.io/cluster"]; got != target.ClusterName {
			t.Errorf("kcp.io/cluster = %q, want %q", got, target.ClusterName)
		}
		// The error is a whole Status (decoded from protobuf for the protobuf client), not a message client-go made up.
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{})
		if status, ok := err.(apierrors.APIStatus); !ok || !apierrors.IsAlreadyExists(err) {
			t.Errorf("second create: want AlreadyExists, got %v", err)
		} else if s := status.Status(); s.Code != 409 || s.Details == nil || s.Details.Name != "settings" || s.Details.Kind != "configmaps" ||
			s.Message != `configmaps "settings" already exists` {
			t.Errorf("second create: Status %+v", s)
		}

		got, err := cms.Get(ctx, "settings", metav1.GetOptions{})
		if err != nil || got.Data["greeting"] != "hello" || got.UID != created.UID {
			t.Fatalf("get: %v %+v", err, got)
		}

		got.Data["greeting"] = "bonjour"
		updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
		if err != nil || updated.Data["greeting"] != "bonjour" || updated.ResourceVersion == created.ResourceVersion {
			t.Fatalf("update: %v %+v", err, updated)
		}
		stale := created.DeepCopy()
		stale.Data["greeting"] = "stale"
		if _, err := cms.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			t.Errorf("update with a stale resourceVersion: want Conflict, got %v", err)
		}

		// Every patch type client-go offers for built-in types.
		patches := []struct {
			pt   types.PatchType
			body string
			key  string
		}{
			{types.StrategicMergePatchType, `{"data":{"strategic":"1"}}`, "strategic"},
			{types.MergePatchType, `{"data":{"merge":"1"}}`, "merge"},
			{types.JSONPatchType, `[{"op":"add","path":"/data/json","value":"1"}]`, "json"},
		}
		for _, p := range patches {
			patched, err := cms.Patch(ctx, "settings", p.pt, []byte(p.body), metav1.PatchOptions{})
			if err != nil || patched.Data[p.key] != "1" || patched.Data["greeting"] != "bonjour" {
				t.Errorf("%s patch: %v %+v", p.pt, err, patched)
			}
		}

		// Lists: a label selector, and pages of one with continue tokens.
		for i := range 3 {
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("page-%d", i)}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create page-%d: %v", i, err)
			}
		}
		selected, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=peer"})
		if err != nil || len(selected.Items) != 1 || selected.Items[0].Name != "settings" {
			t.Errorf("list app=peer: %v %+v", err, selected)
		}
		var names []string
		opts := metav1.ListOptions{Limit: 1}
		for pages := 0; ; pages++ {
			page, err := cms.List(ctx, opts)
			if err != nil {
				t.Fatalf("list page %d: %v", pages, err)
			}
			if len(page.Items) > 1 {
				t.Fatalf("page %d has %d items, limit 1", pages, len(page.Items))
			}
			for _, item := range page.Items {
				names = append(names, item.Name)
			}
			if page.Continue == "" {
				break
			}
			if pages > 10 {
				t.Fatal("pagination does not end")
			}
			opts.Continue = page.Continue
		}
		if fmt.Sprint(names) != "[page-0 page-1 page-2 settings]" {
			t.Errorf("paged list: %v", names)
		}

		// Binary data survives the trip (base64 in JSON, raw bytes in protobuf).
		blob := []byte{0, 1, 2, 0xfe, 0xff, '\n'}
		secret, err := cs.CoreV1().Secrets(target.Namespace).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "blob"},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{"blob": blob},
			StringData: map[string]string{"text": "plain"},
		}, metav1.CreateOptions{})
		if err != nil || !bytes.Equal(secret.Data["blob"], blob) || string(secret.Data["text"]) != "plain" {
			t.Errorf("secret: %v %+v", err, secret)
		}

		lease, err := cs.CoordinationV1().Leases(target.Namespace).Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "lock"},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To("peer"),
				LeaseDurationSeconds: ptr.To[int32](15),
				RenewTime:            &metav1.MicroTime{Time: time.Now().Truncate(time.Microsecond)},
			},
		}, metav1.CreateOptions{})
		if err != nil || *lease.Spec.HolderIdentity != "peer" || lease.Spec.RenewTime == nil {
			t.Errorf("lease: %v %+v", err, lease)
		}

		// Delete with preconditions: a wrong UID is refused, the right one deletes.
		wrong := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("not-the-uid"))}}
		if err := cms.Delete(ctx, "settings", wrong); !apierrors.IsConflict(err) {
			t.Errorf("delete with a wrong UID precondition: want Conflict, got %v", err)
		}
		right := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &created.UID}}
		if err := cms.Delete(ctx, "settings", right); err != nil {
			t.Errorf("delete: %v", err)
		}
		if _, err := cms.Get(ctx, "settings", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: want NotFound, got %v", err)
		}
		if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Errorf("delete collection: %v", err)
		}
		if left, err := cms.List(ctx, metav1.ListOptions{}); err != nil || len(left.Items) != 0 {
			t.Errorf("after delete collection: %v %d left", err, len(left.Items))
		}

		assertAnsweredIn(t, rec, enc, "/configmaps")
		assertAnsweredIn(t, rec, enc, "/secrets")
		assertAnsweredIn(t, rec, enc, "/leases")
	})
}

// A typed watch from a list's resourceVersion sees every change in order, in JSON and in protobuf framing.
func TestTypedWatch(t *testing.T) {
	eachEncoding(t, func(t *testing.T, enc encoding, target kcptest.Target) {
		ctx := t.Context()
		rec := &kcptest.Recorder{}
		cms := kubernetes.NewForConfigOrDie(rec.Record(enc.configure(target.Config))).CoreV1().ConfigMaps(target.Namespace)

		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		defer w.Stop()

		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}, Data: map[string]string{"n": "1"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data["n"] = "2"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, "watched", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}

		want := []string{"ADDED watched 1", "MODIFIED watched 2", "DELETED watched 2"}
		var got []string
		timeout := time.After(20 * time.Second)
		for len(got) < len(want) {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("watch closed after %v", got)
				}
				if ev.Type == watch.Bookmark {
					continue
				}
				obj, ok := ev.Object.(*corev1.ConfigMap)
				if !ok {
					t.Fatalf("event %s carries %T: %+v", ev.Type, ev.Object, ev.Object)
				}
				got = append(got, fmt.Sprintf("%s %s %s", ev.Type, obj.Name, obj.Data["n"]))
			case <-timeout:
				t.Fatalf("events so far %v, want %v", got, want)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("events %v, want %v", got, want)
		}
		assertAnsweredIn(t, rec, enc, "/configmaps")
	})
}
