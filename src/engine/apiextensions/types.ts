/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps that kcpt interprets. Unknown keys are kept as-is. */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  maximum?: number;
  minimum?: number;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  maxProperties?: number;
  minProperties?: number;
  uniqueItems?: boolean;
  pattern?: string;
  multipleOf?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
  [key: string]: unknown;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Append a child to a kube field path: `spec` + `replicas` → `spec.replicas`. */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** `spec.x` + `a.b` → `spec.x[a.b]` (kube's Key() rendering). */
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** A condition in a CustomResourceDefinition's status. */
export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}
