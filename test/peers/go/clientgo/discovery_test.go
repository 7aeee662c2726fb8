package clientgo

import (
	"mime"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"kcpt/peers/kcptest"
)

// Aggregated discovery (what client-go asks for first) and legacy discovery give the same resources, aggregated in
// two requests; a CRD shows up in both; the OpenAPI v3 document of a group version is there.
func TestDiscovery(t *testing.T) {
	kcptest.EachWorkspace(t, func(t *testing.T, target kcptest.Target) {
		gvr := widgetCRD(t, target.Config)

		aggregatedRec := &kcptest.Recorder{}
		aggregated := discovery.NewDiscoveryClientForConfigOrDie(aggregatedRec.Record(rest.CopyConfig(target.Config)))
		aggregatedResources := serverResources(t, aggregated)

		legacyRec := &kcptest.Recorder{}
		legacy := discovery.NewDiscoveryClientForConfigOrDie(legacyRec.Record(rest.CopyConfig(target.Config)))
		legacy.UseLegacyDiscovery = true
		legacyResources := serverResources(t, legacy)

		for _, want := range []string{
			"v1/configmaps", "v1/namespaces", "v1/secrets", "v1/events",
			"coordination.k8s.io/v1/leases", "events.k8s.io/v1/events",
			"apiextensions.k8s.io/v1/customresourcedefinitions",
			"tenancy.kcp.io/v1alpha1/workspaces",
			gvr.GroupVersion().String() + "/widgets", gvr.GroupVersion().String() + "/widgets/status",
		} {
			if !aggregatedResources[want] {
				t.Errorf("aggregated discovery lacks %s", want)
			}
		}
		// Other tests add APIs to root meanwhile (CRDs, bindings, all in groups under peers.kcpt.dev): leave theirs out.
		for _, resources := range []map[string]bool{aggregatedResources, legacyResources} {
			for name := range resources {
				if strings.Contains(name, "peers.kcpt.dev/") && !strings.HasPrefix(name, gvr.Group+"/") {
					delete(resources, name)
				}
			}
		}
		if diff := difference(aggregatedResources, legacyResources); diff != "" {
			t.Errorf("aggregated and legacy discovery differ: %s", diff)
		}

		// Aggregated: /api and /apis only, answered as APIGroupDiscoveryList. Legacy: one request per group version.
		for _, ex := range aggregatedRec.Exchanges() {
			if ex.URL.Path != "/clusters/"+target.Path+"/api" && ex.URL.Path != "/clusters/"+target.Path+"/apis" {
				t.Errorf("aggregated discovery also asked for %s", ex.URL.Path)
			}
			// Parsed as client-go parses it (mime.ParseMediaType).
			_, params, err := mime.ParseMediaType(ex.ResponseContentType)
			if err != nil || params["g"] != "apidiscovery.k8s.io" || params["v"] != "v2" || params["as"] != "APIGroupDiscoveryList" {
				t.Errorf("%s answered as %q, not aggregated v2 (%v)", ex.URL.Path, ex.ResponseContentType, err)
			}
		}
		// One request per group version per pass. client-go runs the whole pass again when a group version fails
		// (another test's CRD deleted between /apis and its group version's request), so count passes by /apis.
		perGroupVersion, passes := 0, 0
		for _, ex := range legacyRec.Exchanges() {
			if strings.HasSuffix(ex.URL.Path, "/apis/coordination.k8s.io/v1") {
				perGroupVersion++
			}
			if ex.URL.Path == "/clusters/"+target.Path+"/apis" {
				passes++
			}
		}
		if passes == 0 || perGroupVersion != passes {
			t.Errorf("legacy discovery asked for /apis/coordination.k8s.io/v1 %d times in %d passes", perGroupVersion, passes)
		}

		info, err := aggregated.ServerVersion()
		if err != nil || info.GitVersion == "" {
			t.Errorf("server version: %v %+v", err, info)
		}

		// OpenAPI v3, as kubectl explain and client-side tools read it.
		root := openapi3.NewRoot(aggregated.OpenAPIV3())
		spec, err := root.GVSpec(schema.GroupVersion{Version: "v1"})
		if err != nil {
			t.Fatalf("openapi v3 of v1: %v", err)
		}
		if _, ok := spec.Components.Schemas["io.k8s.api.core.v1.ConfigMap"]; !ok {
			t.Errorf("openapi v3 of v1 has no io.k8s.api.core.v1.ConfigMap")
		}
		crSpec, err := root.GVSpec(gvr.GroupVersion())
		if err != nil {
			t.Fatalf("openapi v3 of %s: %v", gvr.GroupVersion(), err)
		}
		if len(crSpec.Paths.Paths) == 0 {
			t.Errorf("openapi v3 of %s has no paths", gvr.GroupVersion())
		}
	})
}

// A deferred discovery RESTMapper maps kinds and short names, and finds a CRD created after its first use once
// reset.
func TestRESTMapper(t *testing.T) {
	kcptest.EachWorkspace(t, func(t *testing.T, target kcptest.Target) {
		dc := discovery.NewDiscoveryClientForConfigOrDie(target.Config)
		mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))

		m, err := mapper.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
		if err != nil || m.Resource.Resource != "configmaps" || m.Scope.Name() != meta.RESTScopeNameNamespace {
			t.Errorf("ConfigMap: %v %+v", err, m)
		}
		m, err = mapper.RESTMapping(schema.GroupKind{Group: "tenancy.kcp.io", Kind: "Workspace"})
		if err != nil || m.Resource.Resource != "workspaces" || m.Scope.Name() != meta.RESTScopeNameRoot {
			t.Errorf("Workspace: %v %+v", err, m)
		}
		expander := restmapper.NewShortcutExpander(mapper, dc, func(string) {})
		if gvk, err := expander.KindFor(schema.GroupVersionResource{Resource: "cm"}); err != nil || gvk.Kind != "ConfigMap" {
			t.Errorf("short name cm: %v %v", err, gvk)
		}

		gvr := widgetCRD(t, target.Config)
		gk := schema.GroupKind{Group: gvr.Group, Kind: "Widget"}
		// Discovery was cached before the CRD existed: no match until the mapper is reset.
		if _, err := mapper.RESTMapping(gk, "v1"); !meta.IsNoMatchError(err) {
			t.Errorf("before reset: want a no-match error, got %v", err)
		}
		mapper.Reset()
		m, err = mapper.RESTMapping(gk, "v1")
		if err != nil || m.Resource != gvr {
			t.Errorf("Widget after reset: %v %+v", err, m)
		}
		if gvk, err := expander.KindFor(schema.GroupVersionResource{Resource: "wdg"}); err != nil || gvk.Kind != "Widget" {
			t.Errorf("short name wdg: %v %v", err, gvk)
		}
	})
}

// serverResources is every group-version/resource discovery lists (a failed group counts as a failure).
func serverResources(t *testing.T, dc discovery.DiscoveryInterface) map[string]bool {
	t.Helper()
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	out := map[string]bool{}
	for _, list := range lists {
		for _, r := range list.APIResources {
			out[list.GroupVersion+"/"+r.Name] = true
		}
	}
	return out
}

func difference(a, b map[string]bool) string {
	var onlyA, onlyB []string
	for k := range a {
		if !b[k] {
			onlyA = append(onlyA, k)
		}
	}
	for k := range b {
		if !a[k] {
			onlyB = append(onlyB, k)
		}
	}
	if len(onlyA)+len(onlyB) == 0 {
		return ""
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return "only aggregated " + strings.Join(onlyA, ",") + "; only legacy " + strings.Join(onlyB, ",")
}
