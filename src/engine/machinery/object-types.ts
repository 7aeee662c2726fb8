/**
 * The shape of a Kubernetes object as kcpt stores and serves it (plain JSON), and of the Table printers that render
 * one: what machinery reads, validates and prints, and what every layer above passes around.
 */
/** A Kubernetes object as stored and served: plain JSON. */
export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
};

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
}

/** Server-side printing, like kube-apiserver's printers: columns and a row function (Name is included). */
export interface TablePrinter {
  columns: TableColumn[];
  /** One cell per column, in order. `now` is passed so Age cells are consistent within one response. */
  cells(obj: KubeObject, now: number): unknown[];
}
