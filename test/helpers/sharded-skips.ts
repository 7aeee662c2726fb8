/**
 * Tests of the files the `e2e-sharded` project reruns that assert what only one server shows, never a deployment
 * behind kcp's front-proxy: the project skips them (by file and title), saying why. Everything else in those files
 * runs unchanged through the proxy.
 */
export const notThroughTheProxy: Record<string, Record<string, string>> = {
  'test/e2e/workspaces.test.ts': {
    'get shards shows this server as Shard root': 'a sharded cluster has three Shards',
    'get ws -o yaml shows what kcp writes on a workspace': 'expects the workspace on Shard root; here placement picks one of three at random',
  },
  'test/e2e/workspaces-private.test.ts': {
    'an unschedulable shard takes no new workspaces': 'makes root unschedulable and expects no shard left; two others remain',
  },
  // kcp's front-proxy answers 403 "workspace access not permitted" for a path it cannot resolve (it cannot tell a
  // missing workspace from one the caller may not see); a shard answers 404. `kcpt ws` tells them apart as kcp's
  // plugin does (cli-ws runs here), raw requests cannot.
  'test/e2e/workspaces-errors.test.ts': {
    'a well-formed path to no workspace is NotFound for that workspace': "the proxy's 403 for an unknown path",
  },
  'test/e2e/workspaces-nesting.test.ts': {
    'paths that do not exist answer kcp’s NotFound for the workspace': "the proxy's 403 for an unknown path",
  },
  'test/e2e/workspaces-deletion.test.ts': {
    'kubectl delete ws returns when every descendant and its content are gone, leaving no rows':
      'counts leftovers with a wildcard /clusters/* request, which spans shards: the proxy does not route it (as kcp\'s)',
    'an Initializing one and an unschedulable one are deleted all the same': 'counts leftovers with a wildcard /clusters/* request',
    'holds every level in Deleting; the objects around it go, each with its DELETED, also to a watch resumed from before':
      "counts leftovers with a wildcard /clusters/* request, and a gone path is the proxy's 403 for an unknown path",
    'a ServiceAccount with a finalizer holds the workspace; the others go with their DELETED, also to a watch resumed from before':
      "counts leftovers with a wildcard /clusters/* request, and a gone path is the proxy's 403 for an unknown path",
    'a namespace whose ServiceAccount is held stays, marked, until the ServiceAccount goes: nothing outlives its namespace':
      "counts leftovers with a wildcard /clusters/* request, and a gone path is the proxy's 403 for an unknown path",
    'a wildcard watch resumed from before sees each object of the tree go exactly once, in resourceVersion order':
      'lists and watches with a wildcard /clusters/* request, which spans shards: the proxy does not route it (as kcp\'s)',
  },
};
